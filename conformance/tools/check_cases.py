#!/usr/bin/env python3
"""Check the case corpus against SPEC.md, and keep SPEC.md's `Cases:` lines exact.

Why this exists: every requirement in conformance/SPEC.md lists the cases that test it, and every
case lists the requirements it tests. The two must agree both ways; this script is the single place
that derives the `Cases:` lines from the case files, so nobody maintains them by hand.

Usage (Python 3.11, standard library only):
    python3 conformance/tools/check_cases.py            # check; exit 1 on any problem
    python3 conformance/tools/check_cases.py --write    # rewrite the Cases: lines, then check
    python3 conformance/tools/check_cases.py --schema   # also validate every case against
                                                        # schema/case.schema.json (needs the
                                                        # third-party `jsonschema` package)

Besides the Cases: lines it checks what the schema cannot: id matches path, ids unique, every
requirement id exists, every MUST has a case, no case mixes levels, one expectation per call, an internal error's secret
is inside its message, `equals_output` only where the output is text, `same_as` names an earlier
result.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "SPEC.md"
CASES = ROOT / "cases"
SCHEMA = ROOT / "schema" / "case.schema.json"

HEADING = re.compile(r"^### ([A-Z]+-[0-9]+) \((MUST|SHOULD|MAY)\) (\S.*)$")
CASES_LINE = re.compile(r"^Cases: ?(.*)$")


def load_spec(text: str):
    """Return {req_id: (level, title, cases_list_or_None, heading_line_index)} and problems."""
    reqs, problems = {}, []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("### "):
            m = HEADING.match(line)
            if not m:
                if re.match(r"^### [A-Z]+-[0-9]+", line):
                    problems.append(f"SPEC.md:{i+1}: malformed requirement heading: {line!r}")
                continue
            rid, level, title = m.groups()
            if rid in reqs:
                problems.append(f"SPEC.md:{i+1}: duplicate requirement {rid}")
            rationale = lines[i + 1] if i + 1 < len(lines) else ""
            cases_line = lines[i + 2] if i + 2 < len(lines) else ""
            if not rationale.startswith("Rationale: ") or len(rationale) <= len("Rationale: "):
                problems.append(f"SPEC.md:{i+2}: {rid}: expected 'Rationale: <one line>'")
            cm = CASES_LINE.match(cases_line)
            listed = None
            if not cm:
                problems.append(f"SPEC.md:{i+3}: {rid}: expected 'Cases: ...'")
            else:
                body = cm.group(1).strip()
                listed = [] if not body else [c.strip() for c in body.split(",")]
                bad = [c for c in listed if not re.fullmatch(r"`[a-z0-9-]+/[a-z0-9-]+`", c)]
                if bad:
                    problems.append(f"SPEC.md:{i+3}: {rid}: malformed case reference(s): {bad[:3]}")
                listed = [c.strip("`") for c in listed]
            reqs[rid] = (level, title, listed, i)
    return reqs, problems


def load_cases():
    cases, problems = {}, []
    for path in sorted(CASES.rglob("*.json")):
        rel = path.relative_to(CASES).with_suffix("").as_posix()
        try:
            case = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            problems.append(f"{rel}: not JSON: {e}")
            continue
        cid = case.get("id") if isinstance(case, dict) else None
        if cid != rel:
            problems.append(f"{rel}: id {cid!r} does not match its path")
        if cid in cases:
            problems.append(f"{rel}: duplicate id {cid!r}")
        cases[rel] = case
    return cases, problems


def final_output(behavior):
    """The output a behaviour ends in (after sleep/mutate), or None if it raises."""
    while isinstance(behavior, dict):
        if "return" in behavior:
            return behavior["return"]
        if "then" in behavior:
            behavior = behavior["then"]
            continue
        return None
    return None


def walk_behaviors(behavior):
    while isinstance(behavior, dict):
        yield behavior
        behavior = behavior.get("then")


def check_case(cid, case):
    problems = []
    calls = case.get("calls", [])
    results = case.get("expect", {}).get("results", [])
    if len(calls) != len(results):
        problems.append(f"{cid}: {len(calls)} call(s) but {len(results)} result expectation(s)")
    tools = {t.get("name"): t for t in case.get("tools", [])}
    for t in case.get("tools", []):
        for b in walk_behaviors(t.get("behavior")):
            r = b.get("raise")
            if isinstance(r, dict) and r.get("kind") == "internal":
                if not r.get("secret") or r["secret"] not in r.get("message", ""):
                    problems.append(f"{cid}: tool {t.get('name')}: internal error's secret is not inside its message")
    for call, res in zip(calls, results):
        if res.get("content", {}).get("equals_output"):
            t = tools.get(call.get("name")) if isinstance(call.get("name"), str) else None
            out = final_output(t.get("behavior")) if t else None
            if not (isinstance(out, dict) and ("text" in out or "generate" in out)):
                problems.append(f"{cid}: equals_output on a call whose tool does not return text/generate")
    for i, res in enumerate(results):
        j = res.get("same_as")
        if j is not None and not (isinstance(j, int) and 0 <= j < i):
            problems.append(f"{cid}: result {i + 1}: same_as {j!r} must name an earlier result (0-based)")
    for name in case.get("expect", {}).get("invocations", {}):
        if name not in tools:
            problems.append(f"{cid}: invocations names unknown tool {name!r}")
    return problems


def main(argv):
    write = "--write" in argv
    problems = []
    cases, p = load_cases()
    problems += p
    for cid, case in cases.items():
        problems += check_case(cid, case)

    if "--schema" in argv:
        try:
            import jsonschema  # type: ignore
        except ImportError:
            problems.append("--schema needs the jsonschema package (pip install jsonschema)")
        else:
            validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
            for cid, case in cases.items():
                for err in validator.iter_errors(case):
                    problems.append(f"{cid}: schema: /{'/'.join(map(str, err.absolute_path))}: {err.message[:200]}")

    by_req = {}
    for cid, case in cases.items():
        for rid in case.get("requirements", []):
            by_req.setdefault(rid, []).append(cid)

    text = SPEC.read_text(encoding="utf-8")
    reqs, p = load_spec(text)
    if write:
        lines = text.split("\n")
        for rid, (_, _, _, i) in reqs.items():
            if i + 2 < len(lines) and CASES_LINE.match(lines[i + 2]):
                lines[i + 2] = "Cases: " + ", ".join(f"`{c}`" for c in sorted(by_req.get(rid, [])))
        text = "\n".join(lines)
        SPEC.write_text(text, encoding="utf-8")
        reqs, p = load_spec(text)
    problems += p

    for cid, case in cases.items():
        levels = {reqs[r][0] for r in case.get("requirements", []) if r in reqs}
        if len(levels) > 1:
            problems.append(f"{cid}: mixes requirement levels {sorted(levels)}; a SHOULD miss must not read as a MUST failure")
    for rid, cids in sorted(by_req.items()):
        if rid not in reqs:
            problems.append(f"requirement {rid} is used by {len(cids)} case(s) (e.g. {cids[0]}) but not defined in SPEC.md")
    for rid, (level, _, listed, _) in reqs.items():
        actual = sorted(by_req.get(rid, []))
        if listed is not None and sorted(listed) != actual:
            missing = sorted(set(actual) - set(listed))
            extra = sorted(set(listed) - set(actual))
            problems.append(f"{rid}: Cases line out of date (missing {missing[:3]}, extra {extra[:3]}); run with --write")
        if level == "MUST" and not actual:
            problems.append(f"{rid} (MUST) has no case")

    for line in problems:
        print(line)
    levels = {}
    for level, *_ in reqs.values():
        levels[level] = levels.get(level, 0) + 1
    areas = {}
    for cid in cases:
        areas[cid.split("/")[0]] = areas.get(cid.split("/")[0], 0) + 1
    print(f"{len(cases)} cases in {len(areas)} areas; {len(reqs)} requirements "
          + ", ".join(f"{n} {lv}" for lv, n in sorted(levels.items())) + f"; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
