#!/usr/bin/env python3
"""Adds the per-platform optional packages a package-lock.json lacks, so `npm ci` accepts it.

Why this exists: agents that ship a native binary (opencode, Cline, Qwen Code's clipboard addon)
pull it from optional per-platform packages (`@cline/cli-darwin-arm64`, ...). `npm ci` refuses a
lock that lacks an entry for any of them, and a lock written where the registry serves only some
of them (as the mirror this project is built against does) lacks the rest. This writes an entry
for each missing one with its version and its `os`/`cpu` (and `libc`) read from its name, and no
integrity: `npm ci` on this platform skips them without asking the registry, and on another
platform fetches its own package without a recorded hash (regenerate the lock there with a plain
`npm install` against the public registry to pin it). docs/harnesses.md, "Installing opencode".

    python3 conformance/adapters/complete_lock.py conformance/adapters/cline/package-lock.json
"""

import json
import re
import sys

OS = {"darwin": "darwin", "linux": "linux", "win32": "win32", "windows": "win32", "freebsd": "freebsd", "android": "android"}
CPU = {"x64": "x64", "arm64": "arm64", "ia32": "ia32", "arm": "arm"}


def platform_of(name: str) -> dict:
    """`os`, `cpu` and `libc` from a platform package's name (tokens split on `-`)."""
    tokens = re.split(r"[-/]", name)
    found: dict = {}
    for token in tokens:
        if token in OS:
            found["os"] = [OS[token]]
        elif token in CPU:
            found["cpu"] = [CPU[token]]
        elif token == "musl":
            found["libc"] = ["musl"]
    if "os" not in found or "cpu" not in found:
        raise SystemExit(f"complete_lock.py: cannot tell the platform of {name}")
    return found


def complete(lock: dict) -> list[str]:
    packages = lock["packages"]
    added = []
    for entry in list(packages.values()):
        for dep, version in (entry.get("optionalDependencies") or {}).items():
            path = f"node_modules/{dep}"
            if path in packages:
                continue
            packages[path] = {"version": version, "optional": True, **platform_of(dep)}
            added.append(f"{dep}@{version}")
    lock["packages"] = dict(sorted(packages.items(), key=lambda item: (item[0] != "", item[0])))
    return added


def main() -> None:
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            lock = json.load(f)
        added = complete(lock)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(lock, f, indent=2)
            f.write("\n")
        print(f"{path}: added {', '.join(added) or 'nothing'}")


if __name__ == "__main__":
    main()
