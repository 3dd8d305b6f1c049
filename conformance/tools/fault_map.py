#!/usr/bin/env python3
"""Writes docs/fault-map.md: every requirement × every fault dimension, and the cases in each cell.

Why this exists (issue 27): the suite grows toward the faults it is told about. The map turns
"which faults has nobody written a case for?" into a table: for each requirement of
conformance/SPEC.md, the dimensions along which a harness can get it wrong (DIMENSIONS below),
and which cases exercise each. A cell is

- covered: some case lists the requirement and exercises the dimension;
- not applicable: conformance/fault-dimensions.json says why the requirement cannot go wrong
  along that dimension (per requirement family, or per requirement; a requirement's own entry
  wins, and `null` there makes it an exception to its family's);
- open: applicable, no case of its own, and fault-dimensions.json says why: another
  requirement's cases exercise it (named in backticks, and each name must be a case), or the
  fault is plausible and no case is written yet (the reason says what the case needs);
- a gap: applicable, no case, no reason. A gap is an error (`build` returns it as a problem, so
  `--check` fails in CI): every applicable cell needs a case, or a reason in `open` saying why it
  has none yet. A new requirement, or a case dropped from a cell, cannot go unnoticed.

A case's dimensions are its optional `dimensions` field (conformance/schema/case.schema.json)
plus those derived here from its structure (`derived`), so a new case with no annotation still
lands in the map; one with neither is listed under "Cases with no dimension".

The map is generated from the case files, SPEC.md and fault-dimensions.json, so it cannot
drift: CI runs `--check`.

Usage (Python 3.11, standard library only):
    python3 conformance/tools/fault_map.py            # rewrite docs/fault-map.md
    python3 conformance/tools/fault_map.py --check    # exit 1 if it is stale or the data is wrong

The functions below are pure (data in, text or problems out); only `main` reads and writes files.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_cases  # noqa: E402  (SPEC.md and case loading, shared with the corpus check)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "fault-dimensions.json"
MAP = ROOT.parent / "docs" / "fault-map.md"

# The vocabulary, in column order: (name, column heading). The meanings are in
# fault-dimensions.json, which must define exactly these; the case schema's enum is the same list.
DIMENSIONS = (
    ("type", "type"),
    ("boundary", "±1"),
    ("encoding", "enc"),
    ("number", "num/eq"),
    ("ordering", "order"),
    ("concurrency", "conc"),
    ("size", "size"),
    ("absence", "absent"),
    ("nesting", "depth"),
    ("error-path", "err/ok"),
)
NAMES = [name for name, _ in DIMENSIONS]
# Case ids listed per cell; `harness-conformance spec <ID>` lists all of a requirement's cases.
LISTED = 8


def walk(value):
    """Every dict and list inside `value`, `value` included."""
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def depth(value):
    """Containers nested inside each other: a scalar 0, `{}` 1, `{"a": {}}` 2."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def derived(case):
    """The dimensions a case's structure shows, whatever its annotation says.

    - ordering: a batch of two or more calls, or a check on the order of blocks;
    - concurrency: parallel calls, a cancellation, a deadline, or a handler that sleeps;
    - size: a generated (sized) output, a configured cap, or a case of a cap area;
    - nesting: a call whose input nests containers three deep;
    - error-path: some result is expected to be an error.
    """
    dims = set()
    calls = case.get("calls", [])
    results = case.get("expect", {}).get("results", [])
    tools = case.get("tools", [])
    nodes = [n for n in walk(tools) if isinstance(n, dict)]
    if len(calls) >= 2 or any("order" in (r.get("blocks") or {}) for r in results):
        dims.add("ordering")
    needs = set(case.get("needs", []))
    if ("parallel_calls" in case or "cancel_after_ms" in case or needs & {"deadline", "parallel"}
            or "deadline_ms" in case.get("config", {}) or any("sleep_ms" in n for n in nodes)):
        dims.add("concurrency")
    area = case.get("id", "").split("/", 1)[0]
    if (any("generate" in n or "size" in n for n in nodes) or "cap" in case.get("config", {})
            or area in check_cases.CAP_AREAS):
        dims.add("size")
    if any(depth(c.get("input")) >= 3 for c in calls if isinstance(c, dict)):
        dims.add("nesting")
    if any(r.get("is_error") is True for r in results):
        dims.add("error-path")
    return dims


def dimensions_of(case):
    """Annotated ∪ derived, in column order."""
    dims = derived(case) | set(case.get("dimensions", []))
    return [d for d in NAMES if d in dims]


def family(rid):
    return rid.rsplit("-", 1)[0]


def load_data(data, reqs):
    """({rid: {dim: reason}} not applicable, {rid: {dim: reason}} open, problems)."""
    problems = []
    defined = data.get("dimensions", {})
    if list(defined) != NAMES:
        problems.append(f"fault-dimensions.json: `dimensions` must define exactly {NAMES} in that order")
    families = {family(r) for r in reqs}

    def entries(section):
        table = data.get(section, {})
        for key, dims in table.items():
            if key not in reqs and key not in families:
                problems.append(f"fault-dimensions.json: {section}: {key} is neither a requirement nor a family of SPEC.md")
            for dim, reason in dims.items():
                if dim not in NAMES:
                    problems.append(f"fault-dimensions.json: {section}: {key}: unknown dimension {dim!r}")
                if reason is None and key in reqs:
                    continue  # the requirement is an exception to its family's entry
                if not isinstance(reason, str) or not reason.strip():
                    problems.append(f"fault-dimensions.json: {section}: {key}: {dim}: a reason is required")
        return table

    na_table, open_table = entries("not_applicable"), entries("open")
    na, opened = {}, {}
    for rid in reqs:
        # A requirement's own entry wins over its family's; `null` drops the family's.
        for merged, table in ((na, na_table), (opened, open_table)):
            both = {**table.get(family(rid), {}), **table.get(rid, {})}
            merged[rid] = {d: why for d, why in both.items() if why is not None}
        for dim in set(na[rid]) & set(opened[rid]):
            problems.append(f"fault-dimensions.json: {rid}: {dim} is both not applicable and open")
    return na, opened, problems


def case_problems(cases):
    """Annotations outside the vocabulary (the schema says so too; this runs without jsonschema)."""
    problems = []
    for cid, case in cases.items():
        dims = case.get("dimensions", [])
        if not isinstance(dims, list):
            problems.append(f"{cid}: `dimensions` must be a list")
            continue
        for d in dims:
            if d not in NAMES:
                problems.append(f"{cid}: unknown dimension {d!r} (known: {', '.join(NAMES)})")
    return problems


CASE_REF = re.compile(r"`([a-z0-9-]+/[a-z0-9-]+)`")


def reference_problems(data, cases):
    """A reason that names a case (`area/name` in backticks) must name one that exists."""
    problems = []
    for section in ("not_applicable", "open"):
        for key, dims in data.get(section, {}).items():
            for dim, reason in dims.items():
                for cid in CASE_REF.findall(reason or ""):
                    if cid not in cases:
                        problems.append(f"fault-dimensions.json: {section}: {key}: {dim}: no case `{cid}`")
    return problems


def build(reqs, cases, data):
    """The map as Markdown, and the problems of the data (empty when all is well)."""
    problems = case_problems(cases) + reference_problems(data, cases)
    na, opened, data_problems = load_data(data, reqs)
    problems += data_problems
    cells = {rid: {d: [] for d in NAMES} for rid in reqs}
    undimensioned = []
    for cid in sorted(cases):
        case = cases[cid]
        dims = [d for d in dimensions_of(case) if d in NAMES]
        if not dims:
            undimensioned.append(cid)
        for rid in case.get("requirements", []):
            for d in dims:
                if rid in cells:
                    cells[rid][d].append(cid)

    def state(rid, d):
        if cells[rid][d]:
            return "covered"
        if d in na[rid]:
            return "n/a"
        return "open" if d in opened[rid] else "gap"

    counts = {"covered": 0, "n/a": 0, "open": 0, "gap": 0}
    for rid in reqs:
        for d in NAMES:
            counts[state(rid, d)] += 1
    covered_na = [(rid, d) for rid in reqs for d in NAMES if cells[rid][d] and d in na[rid]]

    out = [
        "# Fault map",
        "",
        "<!-- Generated by conformance/tools/fault_map.py from the case files, conformance/SPEC.md and",
        "     conformance/fault-dimensions.json. Do not edit: run the script. CI runs it with --check. -->",
        "",
        "For every requirement of [SPEC.md](../conformance/SPEC.md), the dimensions along which a harness",
        "can get it wrong, and how many cases exercise each (issue 27). A case counts for every requirement",
        "it lists, in every dimension it carries: its `dimensions` field, plus those derived from its",
        "structure (`fault_map.py`, `derived`). `–` is not applicable and **open** is a known gap, each with",
        "its reason in [conformance/fault-dimensions.json](../conformance/fault-dimensions.json) (listed",
        "below); **gap** is an applicable cell with no case and no reason: a case to write.",
        "",
        "| dimension | what a harness gets wrong |",
        "|---|---|",
    ]
    for name, head in DIMENSIONS:
        out.append(f"| `{name}` ({head}) | {data.get('dimensions', {}).get(name, '')} |")
    out += [
        "",
        f"**{len(reqs)} requirements × {len(NAMES)} dimensions = {len(reqs) * len(NAMES)} cells**: "
        f"{counts['covered']} covered, {counts['n/a']} not applicable, {counts['open']} open, "
        f"{counts['gap']} gaps. {len(cases)} cases, {len(undimensioned)} with no dimension.",
        "",
        "| requirement | " + " | ".join(head for _, head in DIMENSIONS) + " |",
        "|---|" + "---:|" * len(NAMES),
    ]
    for rid in reqs:
        row = []
        for d in NAMES:
            s = state(rid, d)
            row.append({"covered": str(len(cells[rid][d])), "n/a": "–", "open": "**open**",
                        "gap": "**gap**"}[s])
        out.append(f"| {rid} | " + " | ".join(row) + " |")

    out += ["", "## Gaps", "",
            "Applicable cells with no case and no reason (`--check` fails while there is one).", ""]
    gaps = [(rid, d) for rid in reqs for d in NAMES if state(rid, d) == "gap"]
    out += [f"- {rid} × `{d}`: {reqs[rid]['title']}" for rid, d in gaps] or ["None."]
    problems += [f"{rid} × {d}: a gap (no case, no reason): write a case that exercises it, or say "
                 "in fault-dimensions.json why it is not applicable or open" for rid, d in gaps]

    out += ["", "## Open", "", "Applicable cells left open on purpose, and why.", ""]
    listed = [(rid, d) for rid in reqs for d in NAMES if state(rid, d) == "open"]
    out += [f"- {rid} × `{d}`: {opened[rid][d]}" for rid, d in listed] or ["None."]

    out += ["", "## Not applicable", "",
            "Why a requirement cannot go wrong along a dimension (a family's reason holds for each of its",
            "requirements unless the requirement has its own).", ""]
    for key, dims in data.get("not_applicable", {}).items():
        for d, reason in dims.items():
            out.append(f"- {key} × `{d}`: " + (reason or f"applies to {key} (its family's reason does not)"))
    if covered_na:
        out += ["", "Cells marked not applicable that cases cover anyway (counted as covered):", ""]
        out += [f"- {rid} × `{d}`: {', '.join(f'`{c}`' for c in cells[rid][d])}" for rid, d in covered_na]

    out += ["", "## Cases with no dimension", "",
            "Neither annotated nor derivable: add `dimensions` to the case file.", ""]
    out += [f"- `{cid}`" for cid in undimensioned] or ["None."]

    out += ["", "## Cases per cell", "",
            f"The first {LISTED} cases of each covered cell (`harness-conformance spec <ID>` lists every case).", ""]
    for rid in reqs:
        filled = [d for d in NAMES if cells[rid][d]]
        if not filled:
            continue
        out += [f"### {rid}", ""]
        for d in filled:
            ids = cells[rid][d]
            more = f" and {len(ids) - LISTED} more" if len(ids) > LISTED else ""
            out.append(f"- `{d}` ({len(ids)}): " + ", ".join(f"`{c}`" for c in ids[:LISTED]) + more)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n", problems


def main(argv):
    check = "--check" in argv
    spec_reqs, problems = check_cases.load_spec(check_cases.SPEC.read_text(encoding="utf-8"))
    cases, case_load_problems = check_cases.load_cases(check_cases.CASES)
    problems += case_load_problems
    data = json.loads(DATA.read_text(encoding="utf-8"))
    schema = json.loads(check_cases.SCHEMA.read_text(encoding="utf-8"))
    if schema["properties"]["dimensions"]["items"]["enum"] != NAMES:
        problems.append(f"case.schema.json: the `dimensions` enum must be {NAMES}")
    text, build_problems = build(spec_reqs, cases, data)
    problems += build_problems
    for p in problems:
        print(p, file=sys.stderr)
    if not check:
        # Written even with problems (gaps, bad data), so the gaps can be read in the map.
        MAP.write_text(text, encoding="utf-8")
    if problems:
        return 1
    if check:
        current = MAP.read_text(encoding="utf-8") if MAP.exists() else ""
        if current != text:
            print(f"{MAP.relative_to(ROOT.parent)} is stale: run python3 conformance/tools/fault_map.py",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
