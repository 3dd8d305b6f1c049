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

Mutants that .cargo/mutants.toml leaves out (not in examine_globs, or in exclude_globs or
exclude_re) are neither counted nor gated even when they were tested: cargo-mutants 27.1 tests
"delete field" mutants whatever the exclusions say, and an exclusion added after a run (for code
no answer reaches) applies to that run's outcomes too. The report says how many it left out.

The triage file (ci/mutants-triage.tsv) has one line per triaged mutant: its key, a verdict and a
reason, tab-separated. The key is the mutant's name with the line and column left out, followed
by ` @ ` and the mutated source line, trimmed, so that a key survives code moving up or down:
    harness-ref/src/cap.rs: replace < with <= in floor_boundary @ while i < text.len() {
Verdicts: `equivalent` (no behaviour changes), `unobservable` (the behaviour changes only where
no harness answer shows it: diagnostics, performance), `case` (a case now catches it; kept so the
next run can confirm). Lines starting with `#` are comments.
"""
from __future__ import annotations

import fnmatch
import json
import re
import statistics
import sys
import tomllib
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent

# The requirement area each mutated file's behaviour belongs to, with the SPEC.md requirements
# whose behaviour the file implements, in the order the report lists them. A file not listed is
# reported under "other". This is the static half of the fault map (where a mutant is); the other
# half is which requirement's checks caught it, read from each caught mutant's test log.
AREAS = [
    ("validation and schemas (VAL, TEACH, ENC)", ["harness-ref/src/schema.rs"]),
    ("repair profile (REPAIR)", ["harness-ref/src/repair.rs"]),
    ("messages: teaching errors (TEACH, CALL)", ["harness-ref/src/messages.rs"]),
    ("codes and retryability (OUT, VOCAB)", ["harness-ref/src/code.rs"]),
    ("cap, note, head and tail, strategies (CAP, HT, STRAT)", ["harness-ref/src/cap.rs"]),
    ("output checks and structured output (OUT, STRUCT)", ["harness-ref/src/output.rs"]),
    ("output wrapping: the envelope (OUT, VOCAB)", ["harness-ref/src/envelope.rs"]),
    ("tool outputs and handler errors (OUT, CALL)", ["harness-ref/src/tool.rs"]),
    ("content blocks (BLOCK)", ["harness-ref/src/block.rs", "harness-ref/src/content.rs",
                                "conformance/adapters/reference/src/blocks.rs"]),
    ("dispatch: ids, lookup, turns, deadlines (CALL, CORR, TURN, ORDER, ISO, DEADLINE)",
     ["harness-ref/src/harness.rs", "harness-ref/src/threads.rs"]),
    ("cancellation (CANCEL, CUT, REPEAT)", ["harness-ref/src/cancel.rs"]),
    ("security gates (AUTH, BUDGET, IDEM, PREP, PATH, BOUND)", ["harness-ref/src/security/"]),
    ("reference adapter (MCP, SERIAL, the wire)", ["conformance/adapters/reference/src/"]),
]

KINDS = ["caught", "missed", "unviable", "timeout"]
SUMMARY = {"CaughtMutant": "caught", "MissedMutant": "missed", "Unviable": "unviable",
           "Timeout": "timeout"}
ACCEPTED = {"equivalent", "unobservable"}
LINE_COL = re.compile(r"^([^:]+):\d+:\d+: ")
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+")
CAUGHT_BY = re.compile(r"^caught by: (.*)$", re.M)
WRONG_VERDICT = re.compile(r"^(?:Reference|Repair): ([\w./-]+) is [A-Z ]+ \(expected", re.M)


class Tested(NamedTuple):
    """One mutant's outcome: the mutant as cargo-mutants describes it, caught / missed /
    unviable / timeout, its build and test time, and the requirements that caught it."""
    mutant: dict
    kind: str
    seconds: float
    caught_by: list


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


def line_of_diff(diff: str, line: int) -> str | None:
    """The text of the original file's `line` in a unified diff (a context or removed line of
    a hunk), trimmed, or None when no hunk covers it."""
    old = None
    for text in diff.split("\n"):
        hunk = HUNK.match(text)
        if hunk:
            old = int(hunk.group(1))
        elif old is not None and text[:1] in ("-", " "):
            if old == line:
                return text[1:].strip()
            old += 1
    return None


def key_of(mutant: dict) -> str:
    """The triage key: the name without line and column, and the mutated line's text — as the
    run saw it (from the mutant's diff, so that later edits to the file do not change the key),
    else as the tree has it now."""
    name = LINE_COL.sub(r"\1: ", mutant["name"])
    line = mutant["span"]["start"]["line"]
    text = mutant.get("original_line")
    return f"{name} @ {source_line(mutant['file'], line) if text is None else text}"


def outcome_files(dirs):
    for d in map(Path, dirs):
        if (d / "outcomes.json").is_file():
            yield d / "outcomes.json"
        else:
            yield from sorted(d.rglob("outcomes.json"))


def caught_by(log: str) -> list[str]:
    """The requirements whose checks failed first on a mutant, from its test log: the last
    `caught by:` line the suite's reference_fast test prints when a case's verdict is wrong;
    from a log without one (an older test), the requirements of the case it names."""
    found = CAUGHT_BY.findall(log)
    if found:
        return found[-1].split()
    case = WRONG_VERDICT.findall(log)
    if not case:
        return []
    try:
        data = json.loads((ROOT / "conformance/cases" / f"{case[-1]}.json").read_text(
            encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [r for r in data.get("requirements", []) if isinstance(r, str)]


def glob_match(path: str, pattern: str) -> bool:
    """A cargo-mutants glob: `*` within a path, `**/` any number of directories, none included."""
    return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern.replace("**/", ""))


def exclusions(config=None):
    """The predicate `excluded(mutant)` of the cargo-mutants configuration (default
    .cargo/mutants.toml): a mutant in a file that no examine_globs entry names (when there are
    any) or that an exclude_globs entry names, or whose name matches an exclude_re entry. No
    configuration file: nothing is excluded."""
    path = Path(config) if config else ROOT / ".cargo" / "mutants.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    examined = list(data.get("examine_globs", []))
    globs = list(data.get("exclude_globs", []))
    regexes = [re.compile(r) for r in data.get("exclude_re", [])]

    def excluded(mutant: dict) -> bool:
        file = mutant["file"]
        return ((examined and not any(glob_match(file, g) for g in examined))
                or any(glob_match(file, g) for g in globs)
                or any(r.search(mutant["name"]) for r in regexes))
    return excluded


def load(dirs):
    """{mutant name: Tested} over every outcomes.json under dirs (later ones win)."""
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
            if not kind:
                continue
            m = dict(scenario["Mutant"])
            if o.get("diff_path"):
                try:
                    m["original_line"] = line_of_diff(
                        (path.parent / o["diff_path"]).read_text(encoding="utf-8", errors="replace"),
                        m["span"]["start"]["line"])
                except OSError:
                    pass
            seconds = sum(float(p.get("duration") or 0) for p in o.get("phase_results") or [])
            reqs = []
            if kind == "caught" and o.get("log_path"):
                try:
                    reqs = caught_by((path.parent / o["log_path"]).read_text(
                        encoding="utf-8", errors="replace"))
                except OSError:
                    pass
            mutants[m["name"]] = Tested(m, kind, seconds, reqs)
    return mutants


def without_excluded(mutants, excluded):
    """(the mutants `excluded` keeps, how many it left out)."""
    kept = {name: t for name, t in mutants.items() if not excluded(t.mutant)}
    return kept, len(mutants) - len(kept)


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


def timing(mutants):
    """One line on time: the median mutant (build and test), and the whole run's sum."""
    times = [t.seconds for t in mutants.values() if t.seconds > 0]
    if not times:
        return []
    return [f"Time: {sum(times) / 60:.0f} min of build and test over {len(times)} mutants, "
            f"median {statistics.median(times):.0f} s per mutant, slowest {max(times):.0f} s.", ""]


def fault_map(mutants):
    """Per area, the requirements whose checks caught its mutants first, most first."""
    caught = {}
    for t in mutants.values():
        for req in t.caught_by:
            area = caught.setdefault(area_of(t.mutant["file"]), {})
            area[req] = area.get(req, 0) + 1
    if not caught:
        return []
    out = ["## Which requirements caught them", "",
           "Per area, the requirements whose checks failed first on each caught mutant (the test "
           "stops at the first wrong verdict, so a mutant counts for the first case that caught "
           "it, under every requirement that case failed).", "",
           "| area | caught by (mutants) |", "|---|---|"]
    order = [a for a, _ in AREAS] + ["other"]
    for area in (a for a in order if a in caught):
        reqs = sorted(caught[area].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(f"| {area} | " + ", ".join(f"{r} ({n})" for r, n in reqs) + " |")
    return out + [""]


def report(mutants, triage, left_out=0):
    by_file, by_area, total = {}, {}, dict.fromkeys(KINDS, 0)
    for t in mutants.values():
        by_file.setdefault(t.mutant["file"], dict.fromkeys(KINDS, 0))[t.kind] += 1
        by_area.setdefault(area_of(t.mutant["file"]), dict.fromkeys(KINDS, 0))[t.kind] += 1
        total[t.kind] += 1
    missed = sorted((t.mutant for t in mutants.values() if t.kind == "missed"),
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
           f"{total['unviable']} unviable, {total['timeout']} timeout."
           + (f" {left_out} more were tested although .cargo/mutants.toml excludes them, and are"
              " left out." if left_out else ""), ""]
    if viable:
        rate = 100 * killed / max(viable - equivalent, 1)
        out += [f"Caught (timeouts included) of the viable mutants that are not equivalent or "
                f"unobservable: {killed} of {viable - equivalent} = {rate:.1f}%. Missed: "
                + ", ".join(f"{n} {v}" for v, n in verdicts.items()) + ".", ""]
    out += timing(mutants)
    order = [a for a, _ in AREAS] + ["other"]
    out += table("area", [(a, by_area[a]) for a in order if a in by_area]) + [""]
    out += table("file", sorted(by_file.items())) + [""]
    out += fault_map(mutants)
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
    mutants, left_out = without_excluded(load(args), exclusions())
    triage = load_triage(triage_path)
    if not gate:
        sys.stdout.write(report(mutants, triage, left_out))
        return 0
    open_ones = [t.mutant for t in mutants.values()
                 if t.kind == "missed" and triage.get(key_of(t.mutant), ("",))[0] not in ACCEPTED]
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
