"""``python -m harness_conformance ARGS``: runs the installed binary with ARGS.

On POSIX the Python process is replaced (exec), so signals, exit codes and stdio are the binary's
own; Windows has no exec, so the binary runs as a child and its exit code is passed on. The
binary is told how it was started (HARNESS_CONFORMANCE_COMMAND), so the reproducers it prints are
commands the user can type.
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
    if "HARNESS_CONFORMANCE_COMMAND" not in os.environ:
        python = "python3" if os.path.basename(sys.executable) == "python3" else "python"
        os.environ["HARNESS_CONFORMANCE_COMMAND"] = f"{python} -m harness_conformance"
    if sys.platform == "win32":
        sys.exit(subprocess.run(args).returncode)
    os.execv(binary, args)


if __name__ == "__main__":
    main()
