#!/usr/bin/env python3
"""Prints the README's "How real harnesses fare" counts for saved JSON reports.

The table's numbers are derived from runs, so they are written by this script, never by hand:

    python3 conformance/tools/harness_table.py [--detail] target/baselines/*.jsonl

prints, per report, `name | PASS | FAIL | SKIP | MUST requirements failing` (the last cell: failing
of tested, then not testable, not evaluated and not applicable where there are any); with
`--detail` (docs/harnesses.md), the MUST and SHOULD cells are `pass / fail / not testable / not
evaluated / n.a.` instead. A baselined
failure (XFAIL) counts as a FAIL and an ERROR too, a STALE as a PASS: the table compares harnesses,
not baselines. Standard library
only.
"""

import json
import os
import sys
from collections import Counter

FAILING = {"FAIL", "XFAIL"}


STATUSES = ("PASS", "FAIL", "NOT TESTABLE", "NOT EVALUATED", "NOT APPLICABLE")


def split(requirements, level):
    status = Counter(r["status"] for r in requirements if r["level"] == level)
    status["FAIL"] += status["XFAIL"]
    return " / ".join(str(status[s]) for s in STATUSES)


def row(path, detail=False):
    lines = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    cases = [line for line in lines if line.get("type") == "case"]
    summary = next((line for line in lines if line.get("type") == "summary"), None)
    if summary is None:
        raise SystemExit(f"{path}: no summary line (an interrupted run?)")
    verdicts = Counter(c["verdict"] for c in cases)
    passed = verdicts["PASS"] + verdicts["STALE"]
    failed = sum(verdicts[v] for v in ("FAIL", "XFAIL", "ERROR", "BUG IN CASE"))
    skipped = verdicts["SKIP"] + verdicts["NEW SKIP"]
    name = os.path.basename(path).rsplit(".", 1)[0]
    if detail:
        reqs = summary["requirements"]
        return (f"| {name} | {passed} | {failed} | {skipped} | {split(reqs, 'MUST')} "
                f"| {split(reqs, 'SHOULD')} |")
    musts = [r for r in summary["requirements"] if r["level"] == "MUST"]
    status = Counter(r["status"] for r in musts)
    failing = sum(status[s] for s in FAILING)
    tested = failing + status["PASS"]
    cell = f"{failing} of {tested} tested"
    for label, key in (("not testable", "NOT TESTABLE"), ("not evaluated", "NOT EVALUATED"),
                       ("not applicable", "NOT APPLICABLE")):
        if status[key]:
            cell += f", {status[key]} {label}"
    return f"| {name} | {passed} | {failed} | {skipped} | {cell} |"


def main(args):
    detail = "--detail" in args
    paths = [a for a in args if a != "--detail"]
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in paths:
        print(row(path, detail))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
