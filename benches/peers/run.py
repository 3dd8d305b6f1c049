"""The peers benchmark: per-call dispatch overhead of harness-ref, the Python seed and the real
harnesses behind the adapters, measured one after another in one run, with the ratios.

    python3 benches/peers/run.py [--calls N] [--skip-install] [--only NAME ...]

Installs the pinned harnesses with conformance/adapters/install.sh (idempotent; it creates each
adapter's .venv / node_modules, which is all this uses: no adapter code), runs harness-ref's
criterion bench for the same two calls (`dispatch/valid_3_fields_ref`,
`dispatch/invalid_2_violations_ref`: a borrowing inline handler, the call passed by reference),
then `seed.py`, `python_peers.py` in each harness's venv and `mcp_typescript.mjs` under node,
and prints a Markdown table: medians per call and each figure as a multiple of harness-ref's.
Every harness gets the same tool (`list(path: str, limit: int >= 1, recursive: bool)`, handler
returning "ok") and the same valid and invalid call. Benchmarks only: nothing here asserts a
time. The machine's load is printed with the table; compare figures from one run only.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ADAPTERS = ROOT / "conformance" / "adapters"
PYTHON_PEERS = [("mcp-python", "mcp-python"), ("pydantic-ai", "pydantic-ai"), ("langgraph", "langgraph-default")]


def json_line(cmd: list[str], cwd: Path = ROOT) -> dict:
    out = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def harness_ref() -> dict:
    names = ["valid_3_fields_ref", "invalid_2_violations_ref"]
    pattern = "^dispatch/(" + "|".join(names) + ")$"
    subprocess.run(
        ["cargo", "bench", "--locked", "-p", "harness-ref", "--bench", "dispatch", "--",
         "--warm-up-time", "1", "--measurement-time", "4", pattern],
        cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    median = {}
    for name in names:
        estimates = json.loads((target / "criterion" / f"dispatch_{name}" / "new" / "estimates.json").read_text())
        median[name] = estimates["median"]["point_estimate"]
    return {"name": "harness-ref (handle_ref, borrowing inline handler)",
            "valid_ns": median[names[0]], "invalid_ns": median[names[1]],
            "valid_error": False, "invalid_error": True, "note": "every violation, with remedies"}


def fmt_ns(ns: float) -> str:
    return f"{ns / 1000:,.2f} µs" if ns >= 10_000 else f"{ns:,.0f} ns"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per timed run for the peers")
    parser.add_argument("--skip-install", action="store_true")
    parser.add_argument("--only", nargs="*", help="peers to run (harness-ref and the seed always run)")
    args = parser.parse_args()
    only = set(args.only or ["mcp-python", "pydantic-ai", "langgraph", "mcp-typescript"])
    if not args.skip_install:
        subprocess.run([str(ADAPTERS / "install.sh")], cwd=ROOT, check=True, stdout=sys.stderr)

    rows = [harness_ref(), json_line([sys.executable, str(HERE / "seed.py")])]
    for name, adapter in PYTHON_PEERS:
        if name in only:
            python = ADAPTERS / adapter / ".venv" / "bin" / "python"
            rows.append(json_line([str(python), str(HERE / "python_peers.py"), name, str(args.calls)]))
    if "mcp-typescript" in only:
        rows.append(json_line(["node", str(HERE / "mcp_typescript.mjs"), str(ADAPTERS / "mcp-typescript"),
                               str(args.calls)]))

    base = rows[0]
    load = os.getloadavg()
    print(f"peers: one run, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, {os.cpu_count()} cores")
    print()
    print("| harness | valid call | invalid call | valid ÷ harness-ref | invalid ÷ harness-ref | invalid refused |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['name']} | {fmt_ns(row['valid_ns'])} | {fmt_ns(row['invalid_ns'])} "
              f"| {row['valid_ns'] / base['valid_ns']:,.1f}× | {row['invalid_ns'] / base['invalid_ns']:,.1f}× "
              f"| {'yes' if row['invalid_error'] else 'no'} |")
    print()
    for row in rows:
        extra = {k: v for k, v in row.items() if k not in ("name", "valid_ns", "invalid_ns", "valid_error", "invalid_error")}
        if extra:
            print(f"- {row['name']}: {json.dumps(extra)}")


if __name__ == "__main__":
    main()
