#!/usr/bin/env python3
"""Merge cargo-mutants outputs into one report, and gate on missed mutants (docs/mutants.md).

Why this exists: the full mutation run is split into shards (ci/mutants.sh --shard K/N, one
GitHub Actions job each, .github/workflows/mutants.yml), each writing its own mutants.out; the
figures people act on are those of the whole run, per file and per requirement area, with the
missed mutants that nobody has triaged yet listed first.

Usage (Python 3, standard library only):
    python3 ci/mutants_report.py [--triage FILE] DIR...      # Markdown report on stdout
    python3 ci/mutants_report.py --gate FILE DIR...          # exit 1 if a missed mutant is
                                                             # not triaged as equivalent or
                                                             # unobservable in FILE
DIR is a mutants.out directory (or one that holds mutants.out directories, searched
recursively), as cargo-mutants writes it: outcomes.json has one entry per mutant tested.

The triage file (ci/mutants-triage.tsv) has one line per triaged mutant: its key, a verdict and a
reason, tab-separated. The key is the mutant's name with the line and column left out, followed
by ` @ ` and the mutated source line, trimmed, so that a key survives code moving up or down:
    harness-ref/src/cap.rs: replace < with <= in floor_boundary @ while i < text.len() {
Verdicts: `equivalent` (no behaviour changes), `unobservable` (the behaviour changes only where
no harness answer shows it: diagnostics, performance), `case` (a case now catches it; kept so the
next run can confirm). Lines starting with `#` are comments.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The requirement area each mutated file's behaviour belongs to (SPEC.md's sections), in the
# order the report lists them. A file not listed is reported under "other".
AREAS = [
    ("validation and schemas", ["harness-ref/src/schema.rs"]),
    ("repair profile", ["harness-ref/src/repair.rs"]),
    ("messages (teaching errors)", ["harness-ref/src/messages.rs"]),
    ("codes and retryability", ["harness-ref/src/code.rs"]),
    ("cap, note, head and tail, strategies", ["harness-ref/src/cap.rs"]),
    ("output checks and structured output", ["harness-ref/src/output.rs"]),
    ("output wrapping (envelope)", ["harness-ref/src/envelope.rs"]),
    ("tool outputs and handler errors", ["harness-ref/src/tool.rs"]),
    ("content blocks", ["harness-ref/src/block.rs", "harness-ref/src/content.rs",
                        "conformance/adapters/reference/src/blocks.rs"]),
    ("dispatch: ids, lookup, turns, deadlines", ["harness-ref/src/harness.rs",
                                                 "harness-ref/src/threads.rs"]),
    ("cancellation", ["harness-ref/src/cancel.rs"]),
    ("security gates", ["harness-ref/src/security/"]),
    ("reference adapter", ["conformance/adapters/reference/src/"]),
]

KINDS = ["caught", "missed", "unviable", "timeout"]
SUMMARY = {"CaughtMutant": "caught", "MissedMutant": "missed", "Unviable": "unviable",
           "Timeout": "timeout"}
ACCEPTED = {"equivalent", "unobservable"}
LINE_COL = re.compile(r"^([^:]+):\d+:\d+: ")


def area_of(path: str) -> str:
    for area, prefixes in AREAS:
        if any(path == p or (p.endswith("/") and path.startswith(p)) for p in prefixes):
            return area
    return "other"


def source_line(path: str, line: int) -> str:
    try:
        lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
    except OSError:
        return ""
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def key_of(mutant: dict) -> str:
    """The triage key: the name without line and column, and the mutated line's text."""
    name = LINE_COL.sub(r"\1: ", mutant["name"])
    return f"{name} @ {source_line(mutant['file'], mutant['span']['start']['line'])}"


def outcome_files(dirs):
    for d in map(Path, dirs):
        if (d / "outcomes.json").is_file():
            yield d / "outcomes.json"
        else:
            yield from sorted(d.rglob("outcomes.json"))


def load(dirs):
    """{mutant name: (mutant, kind)} over every outcomes.json under dirs (later ones win)."""
    mutants = {}
    files = list(outcome_files(dirs))
    if not files:
        raise SystemExit(f"mutants_report.py: no outcomes.json under {' '.join(dirs)}")
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        for o in data.get("outcomes", []):
            scenario = o.get("scenario")
            if not isinstance(scenario, dict) or "Mutant" not in scenario:
                continue
            kind = SUMMARY.get(o.get("summary"))
            if kind:
                m = scenario["Mutant"]
                mutants[m["name"]] = (m, kind)
    return mutants


def load_triage(path):
    triage = {}
    if path is None:
        return triage
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[1] not in ACCEPTED | {"case"} or not parts[2].strip():
            raise SystemExit(f"{path}:{n}: expected KEY<TAB>equivalent|unobservable|case<TAB>REASON")
        triage[parts[0]] = (parts[1], parts[2])
    return triage


def table(title, rows):
    out = [f"| {title} | mutants | caught | missed | unviable | timeout | caught of the viable |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for name, c in rows:
        viable = c["caught"] + c["missed"] + c["timeout"]
        rate = f"{100 * (c['caught'] + c['timeout']) / viable:.1f}%" if viable else "–"
        out.append(f"| {name} | {sum(c.values())} | " + " | ".join(str(c[k]) for k in KINDS)
                   + f" | {rate} |")
    return out


def report(mutants, triage):
    by_file, by_area, total = {}, {}, dict.fromkeys(KINDS, 0)
    for m, kind in mutants.values():
        by_file.setdefault(m["file"], dict.fromkeys(KINDS, 0))[kind] += 1
        by_area.setdefault(area_of(m["file"]), dict.fromkeys(KINDS, 0))[kind] += 1
        total[kind] += 1
    missed = sorted((m for m, kind in mutants.values() if kind == "missed"),
                    key=lambda m: (m["file"], m["span"]["start"]["line"]))
    verdicts = {"untriaged": 0, **{v: 0 for v in sorted(ACCEPTED | {"case"})}}
    listed = []
    for m in missed:
        verdict, reason = triage.get(key_of(m), ("untriaged", ""))
        verdicts[verdict] += 1
        listed.append((verdict, m, reason))
    equivalent = verdicts["equivalent"] + verdicts["unobservable"]
    viable = total["caught"] + total["missed"] + total["timeout"]
    killed = total["caught"] + total["timeout"]
    out = ["# Mutation testing of the reference: report", "",
           f"{sum(total.values())} mutants: {total['caught']} caught, {total['missed']} missed, "
           f"{total['unviable']} unviable, {total['timeout']} timeout.", ""]
    if viable:
        rate = 100 * killed / max(viable - equivalent, 1)
        out += [f"Caught (timeouts included) of the viable mutants that are not equivalent or "
                f"unobservable: {killed} of {viable - equivalent} = {rate:.1f}%. Missed: "
                + ", ".join(f"{n} {v}" for v, n in verdicts.items()) + ".", ""]
    order = [a for a, _ in AREAS] + ["other"]
    out += table("area", [(a, by_area[a]) for a in order if a in by_area]) + [""]
    out += table("file", sorted(by_file.items())) + [""]
    if listed:
        out += ["## Missed mutants", "", "| verdict | mutant | reason |", "|---|---|---|"]
        rank = {"untriaged": 0, "case": 1, "unobservable": 2, "equivalent": 3}
        for verdict, m, reason in sorted(listed, key=lambda x: rank[x[0]]):
            out.append(f"| {verdict} | `{m['name']}` | {reason.replace('|', '/')} |")
    return "\n".join(out) + "\n"


def main(argv):
    triage_path, gate = None, False
    args = list(argv)
    for flag in ("--triage", "--gate"):
        if flag in args:
            i = args.index(flag)
            triage_path = args[i + 1]
            gate = gate or flag == "--gate"
            del args[i:i + 2]
    if not args:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    mutants = load(args)
    triage = load_triage(triage_path)
    if not gate:
        sys.stdout.write(report(mutants, triage))
        return 0
    open_ones = [m for m, kind in mutants.values()
                 if kind == "missed" and triage.get(key_of(m), ("",))[0] not in ACCEPTED]
    for m in open_ones:
        print(f"MISSED {m['name']}\n  triage key: {key_of(m)}")
    if open_ones:
        print(f"{len(open_ones)} missed mutant(s) not triaged as equivalent or unobservable: add a "
              f"case that catches each (docs/mutants.md) or a line to {triage_path} saying why none can")
        return 1
    print(f"mutants: no missed mutant left untriaged ({len(mutants)} tested)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
