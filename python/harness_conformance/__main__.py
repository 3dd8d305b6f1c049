"""``python -m harness_conformance ARGS``: runs the installed binary with ARGS.

On POSIX the Python process is replaced (exec), so signals, exit codes and stdio are the binary's
own; Windows has no exec, so the binary runs as a child and its exit code is passed on.
"""

import os
import subprocess
import sys

from harness_conformance._find_binary import find_binary


def main() -> None:
    try:
        binary = find_binary()
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    args = [binary, *sys.argv[1:]]
    if sys.platform == "win32":
        sys.exit(subprocess.run(args).returncode)
    os.execv(binary, args)


if __name__ == "__main__":
    main()
