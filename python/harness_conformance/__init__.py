"""The harness-conformance runner, installed as a binary.

This package only ships the ``harness-conformance`` executable (built from the Rust crate by
maturin) and a way to find it; there is no Python API. Use the command, or
``python -m harness_conformance``.
"""

from harness_conformance._find_binary import find_binary

__all__ = ["find_binary"]
