"""`python -m harness_conformance_adapter MODULE:ATTRIBUTE` serves the Adapter named there.

Why this exists: it gives every adapter the same command line (the pytest plugin uses it), so an
adapter module need not have a `__main__` block. MODULE is an importable module name or a path to
a `.py` file; ATTRIBUTE names an `Adapter` in it.
"""

from __future__ import annotations

import sys

from .errors import KitError
from .loading import load_adapter


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m harness_conformance_adapter MODULE:ATTRIBUTE", file=sys.stderr)
        return 2
    try:
        adapter = load_adapter(argv[0])
    except KitError as exc:
        print(f"harness-conformance-adapter: {exc}", file=sys.stderr)
        return 2
    return adapter.serve()


def run() -> None:
    """The `harness-conformance-adapter` console script."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
