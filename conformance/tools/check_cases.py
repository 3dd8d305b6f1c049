#!/usr/bin/env python3
"""Check the case corpus against SPEC.md, and keep SPEC.md's `Cases:` lines exact.

Why this exists: every requirement in conformance/SPEC.md lists the cases that test it, every
case lists the requirements it tests, and every check a case makes is owned by exactly one of
those requirements (its *blame*, docs/DESIGN.md "The case file"). The three must agree; this
script is the single place that derives the `Cases:` lines from the case files, and it enforces
the same loader rules as the runner, so a case author finds a mistake before building anything.

Usage (Python 3.11, standard library only):
    python3 conformance/tools/check_cases.py            # check; exit 1 on any problem
    python3 conformance/tools/check_cases.py --write    # rewrite the Cases: lines, then check
    python3 conformance/tools/check_cases.py --schema   # also validate every case against
                                                        # schema/case.schema.json (needs the
                                                        # third-party `jsonschema` package)
    python3 conformance/tools/check_cases.py --owners <case-id>...
                                                        # print every check of those cases and
                                                        # the requirement that owns it

What it checks besides the schema:
- the case: id matches path, ids unique, one expectation per call, an internal error's secret
  is inside its message, `equals_output` only where the output is text, `same_as` names an
  earlier result, `invocations` names defined tools, a relative `sleep_ms` comes with the need
  `deadline`, `non_finite_in` and `non_json` pointers have parents (a `cycle` never at the root), fair classes (SPEC.md "Fair classes": a
  call whose arguments are not an object accepts `malformed_call` and `invalid_arguments`; a
  blank tool name accepts `malformed_call` and `unknown_tool`);
- blame (the loader rules of docs/DESIGN.md): every `blame` key is a check kind or group that
  resolves at least one check of its scope; every check has an owner; every owner is listed in
  `requirements` (universal checks on their default owner excepted); every listed requirement
  owns a check; a case in a cap area lists a CAP-* or HT-* requirement (so that it is a cap
  case); a check owned by a requirement with an `Applies:` line
  only runs where the requirement applies (the case needs what the requirement applies to);
- SPEC.md: headings, `Rationale:`, optional `Applies:` (known need names), `Cases:` lists
  exact both ways, every requirement a case names exists, every MUST has a case.

The functions below are pure (data in, problems out); only `main` reads and writes files.
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
APPLIES_LINE = re.compile(r"^Applies: ?(.*)$")

# Capability needs a case (or an `Applies:` line) may name, besides `feature.<name>`.
NEEDS = {
    "cap.configurable", "cap.unit.bytes", "cap.unit.chars", "cap.strategy.head_only",
    "cap.strategy.head_tail", "codes", "retryability", "deadline", "deadline.configurable",
    "call_form.arguments_text", "call_form.raw", "parallel", "history", "call_ids",
    "cap.unit.lines", "cap.unit.tokens", "cap.strategy.reject", "cap.strategy.spill", "cap.cuts", "cap.note",
    "cap.spill.bound", "dialect", "wrapper",
}
# The feature names, from the hello schema (generated from the runner's vocabulary: ci/vocabulary.sh).
HELLO_SCHEMA = ROOT / "schema" / "protocol" / "hello.schema.json"
FEATURES = set(json.loads(HELLO_SCHEMA.read_text(encoding="utf-8"))
               ["$defs"]["capabilities"]["properties"]["features"]["items"]["enum"])
BEHAVIORS = set(json.loads(HELLO_SCHEMA.read_text(encoding="utf-8"))
                ["$defs"]["capabilities"]["properties"]["behaviors"]["items"]["enum"])

# The check kinds (docs/DESIGN.md "Blame"): made on each result, or once per case.
RESULT_KINDS = {
    "tool_use_id", "is_error", "class", "retryable", "same_as", "represents_output", "repaired",
    "content.equals", "content.contains", "content.contains_any", "content.not_contains",
    "content.matches", "content.max_chars", "content.max_size", "content.equals_output",
    "cap.truncated", "cap.keeps_head", "cap.keeps_last_line", "cap.note_counts", "cap.note_lines",
    "cap.idempotent", "cap.rejected", "cap.spilled", "cap.artifact", "cap.counted", "cap.configured", "cap.own_note", "blocks.delivered", "blocks.order", "blocks.no_payload_text", "blocks.intact", "answered",
    "blocks.within_limits", "replay", "wrapped",
}
CASE_KINDS = {"results.count", "text.valid", "cap.within", "secret", "invocations",
              "received_args", "runs_only_with", "history_unchanged", "stopped", "repeatable",
              "invalid_not_run", "linear_time",
              "spill.kept", "spill.cleaned", "spill.bounded", "spill.distinct"}
GROUPS = {"content", "cap", "blocks", "spill"}
# The owner a check has when no `blame` names one; kinds missing here must be blamed.
DEFAULT_OWNER = {
    "tool_use_id": "CORR-1", "class": "OUT-7", "retryable": "OUT-6",
    "cap.keeps_head": "CAP-10", "cap.keeps_last_line": "HT-2", "cap.note_counts": "CAP-6",
    "cap.note_lines": "HT-3", "cap.idempotent": "CAP-7",
    "cap.rejected": "STRAT-3", "cap.spilled": "STRAT-4", "cap.artifact": "STRAT-5",
    "cap.counted": "CAP-3", "cap.configured": "CAP-9", "cap.own_note": "FORGE-1",
    "results.count": "CORR-1", "text.valid": "ENC-1", "cap.within": "CAP-1", "secret": "OUT-5",
    "answered": "CORR-1", "invalid_not_run": "VAL-1",
    "history_unchanged": "ISO-1", "represents_output": "VOCAB-5", "repaired": "REPAIR-3",
    "blocks.delivered": "BLOCK-1", "blocks.no_payload_text": "BLOCK-2", "blocks.order": "BLOCK-3",
    "blocks.intact": "BLOCK-1",
    "blocks.within_limits": "BLOCK-6",
    "linear_time": "CAP-11",
    "spill.kept": "SPILL-1", "spill.cleaned": "SPILL-2", "spill.bounded": "SPILL-3",
    "spill.distinct": "SPILL-5",
    "replay": "REPLAY-1",
    "wrapped": "WRAP-1",
}
# `cap.truncated` defaults by its value: false (output unchanged) CAP-2, true (cut, noted) CAP-5.
TRUNCATED_OWNER = {False: "CAP-2", True: "CAP-5"}
# Checks every case gets; on their default owner they need not be listed in `requirements`.
UNIVERSAL = {"tool_use_id", "results.count", "text.valid", "cap.within", "secret", "answered",
             "invalid_not_run", "replay"}
# `Applies:` names judged by the runner check by check rather than by a case's needs: `call_ids`
# (no `tool_use_id` checks on a harness without the model's ids) and `cap` (a cap case runs on a
# harness without a cap, for CAP-1, and the checks of the requirements that presuppose a cap are
# not run there), and `dialect` (the universal `replay` check, REPLAY-1's, runs on every case of a
# harness that declares a dialect and on none of one that does not).
RUNNER_JUDGED_APPLIES = {"call_ids", "cap", "dialect"}
CAP_AREAS = {"cap", "head-tail", "cap-strategies"}


# ---------------------------------------------------------------------------------------- SPEC


def load_spec(text: str):
    """Return ({req_id: Requirement dict}, problems). Lines: heading, Rationale, [Applies], Cases."""
    reqs, problems = {}, []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("### "):
            continue
        m = HEADING.match(line)
        if not m:
            if re.match(r"^### [A-Z]+-[0-9]+", line):
                problems.append(f"SPEC.md:{i+1}: malformed requirement heading: {line!r}")
            continue
        rid, level, title = m.groups()
        if rid in reqs:
            problems.append(f"SPEC.md:{i+1}: duplicate requirement {rid}")
        at = i + 1
        rationale = lines[at] if at < len(lines) else ""
        if not rationale.startswith("Rationale: ") or len(rationale) <= len("Rationale: "):
            problems.append(f"SPEC.md:{at+1}: {rid}: expected 'Rationale: <one line>'")
        at += 1
        applies = []
        am = APPLIES_LINE.match(lines[at]) if at < len(lines) else None
        if am:
            applies = [n.strip() for n in am.group(1).split(",") if n.strip()]
            if not applies:
                problems.append(f"SPEC.md:{at+1}: {rid}: 'Applies:' names no capability")
            for need in applies:
                if not known_need(need):
                    problems.append(f"SPEC.md:{at+1}: {rid}: 'Applies:' names unknown capability {need!r}")
            at += 1
        cm = CASES_LINE.match(lines[at]) if at < len(lines) else None
        listed = None
        if not cm:
            problems.append(f"SPEC.md:{at+1}: {rid}: expected 'Cases: ...' (after Rationale and the optional Applies line)")
        else:
            body = cm.group(1).strip()
            listed = [] if not body else [c.strip() for c in body.split(",")]
            bad = [c for c in listed if not re.fullmatch(r"`[a-z0-9-]+/[a-z0-9-]+`", c)]
            if bad:
                problems.append(f"SPEC.md:{at+1}: {rid}: malformed case reference(s): {bad[:3]}")
            listed = [c.strip("`") for c in listed]
        reqs[rid] = {"level": level, "title": title, "applies": applies, "cases": listed,
                     "cases_line": at if cm else None}
    return reqs, problems


def known_need(name: str) -> bool:
    if name in NEEDS or name == "cap":
        return True
    if name.startswith("behavior."):
        return name[len("behavior."):] in BEHAVIORS
    return name.startswith("feature.") and name[len("feature."):] in FEATURES


def write_cases_lines(text: str, reqs, by_req) -> str:
    lines = text.split("\n")
    for rid, req in reqs.items():
        if req["cases_line"] is not None:
            lines[req["cases_line"]] = "Cases: " + ", ".join(f"`{c}`" for c in sorted(by_req.get(rid, [])))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------- cases


def final_output(behavior):
    """The output a behaviour ends in (after sleep/mutate), or None if it raises."""
    for b in walk_behaviors(behavior):
        if "return" in b:
            return b["return"]
    return None


def walk_behaviors(behavior):
    while isinstance(behavior, dict):
        yield behavior
        behavior = behavior.get("then")


def call_id(call):
    """The id a structured or arguments-text call carries, if it is a string; raw calls have none."""
    if "raw" in call:
        return None
    cid = call.get("id")
    return cid if isinstance(cid, str) else None


def strict_json(text):
    """JSON text as RFC 8259 defines it: Python's NaN and Infinity literals are refused."""
    def refuse(literal):
        raise ValueError(f"{literal} is not JSON")
    return json.loads(text, parse_constant=refuse)


def call_block(call):
    """The tool_use block of a call as a dict (a raw call's text parsed), or None."""
    if "raw" not in call:
        return call
    try:
        block = strict_json(call["raw"])
    except ValueError:
        return None
    return block if isinstance(block, dict) else None


def call_arguments(call):
    """(present, value) of the arguments a call sends; arguments text that is not JSON is (True, ...)."""
    if "arguments_text" in call:
        try:
            return True, strict_json(call["arguments_text"])
        except ValueError:
            return True, NOT_JSON
    block = call_block(call)
    if block is None:
        return True, NOT_JSON
    if "input" not in block:
        return False, None
    return True, block["input"]


NOT_JSON = object()


def classes_of(res):
    c = res.get("class")
    if c is None:
        return None
    return set(c) if isinstance(c, list) else {c}


def fair_class_problems(cid, case):
    """SPEC.md "Fair classes": where two classes are both correct, the case accepts both."""
    problems = []
    tools = {t.get("name") for t in case.get("tools", [])}
    for i, (call, res) in enumerate(zip(case.get("calls", []), case.get("expect", {}).get("results", []))):
        classes = classes_of(res)
        if not classes:
            continue
        block = call_block(call)
        name = block.get("name") if block is not None else None
        if isinstance(name, str) and name.strip() == "":
            want = {"malformed_call", "unknown_tool"}
            why = "a blank tool name"
        elif isinstance(name, str) and name in tools:
            present, args = call_arguments(call)
            if args is NOT_JSON or (present and isinstance(args, dict)):
                continue
            want = {"malformed_call", "invalid_arguments"}
            why = "arguments that are not an object"
        else:
            continue
        if not want <= classes:
            problems.append(f"{cid}: result {i+1}: {why} may be answered as {' or '.join(sorted(want))}; "
                            f"the class must accept both (SPEC.md, 'Fair classes'), it accepts {sorted(classes)}")
    return problems


def pointer_parent_exists(value, pointer):
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    if not tokens:
        return True  # the root itself
    cur = value
    for t in tokens[:-1]:
        if isinstance(cur, dict) and t in cur:
            cur = cur[t]
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            return False
    last = tokens[-1]
    if isinstance(cur, dict):
        return True
    return isinstance(cur, list) and last.isdigit() and int(last) < len(cur)


def check_case(cid, case):
    """Problems with one case that the schema cannot see (blame rules excepted)."""
    problems = []
    calls = case.get("calls", [])
    results = case.get("expect", {}).get("results", [])
    if len(calls) != len(results):
        problems.append(f"{cid}: {len(calls)} call(s) but {len(results)} result expectation(s)")
    tools = {t.get("name"): t for t in case.get("tools", [])}
    relative_sleep = False
    for t in case.get("tools", []):
        for b in walk_behaviors(t.get("behavior")):
            r = b.get("raise")
            if isinstance(r, dict) and r.get("kind") == "internal":
                if not r.get("secret") or r["secret"] not in r.get("message", ""):
                    problems.append(f"{cid}: tool {t.get('name')}: internal error's secret is not inside its message")
            if isinstance(b.get("sleep_ms"), dict):
                relative_sleep = True
            out = b.get("return")
            # A stream's waits relative to the deadline.
            if isinstance(out, dict) and isinstance(out.get("stream"), list):
                if any(isinstance(p, dict) and isinstance(p.get("sleep_ms"), dict) for p in out["stream"]):
                    relative_sleep = True
            for behaviour in ("non_finite_in", "non_json"):
                if isinstance(out, dict) and isinstance(out.get(behaviour), dict):
                    nf = out[behaviour]
                    for ptr, kind in nf.get("at", {}).items():
                        if not pointer_parent_exists(nf.get("value"), ptr):
                            problems.append(f"{cid}: tool {t.get('name')}: {behaviour} pointer {ptr!r} has no parent in the value")
                        if kind == "cycle" and (ptr == "" or not isinstance(nf.get("value"), (dict, list))):
                            problems.append(f"{cid}: tool {t.get('name')}: a `cycle` goes inside an object or array value, never at its root")
    if relative_sleep and "deadline" not in case.get("needs", []):
        problems.append(f"{cid}: a sleep relative to the deadline needs `deadline` in `needs`")
    if relative_sleep and not case.get("config", {}).get("deadline_ms"):
        # A harness whose deadline is configurable but has no default resolves the sleep
        # against the case's deadline; without one the runner cannot (a bug in the case).
        problems.append(f"{cid}: a sleep relative to the deadline needs `config.deadline_ms`")
    for call, res in zip(calls, results):
        if res.get("content", {}).get("equals_output"):
            t = tools.get(call.get("name")) if isinstance(call.get("name"), str) else None
            out = final_output(t.get("behavior")) if t else None
            if not (isinstance(out, dict) and ("text" in out or "generate" in out or "stream" in out)):
                problems.append(f"{cid}: equals_output on a call whose tool does not return text/generate/stream")
    for i, res in enumerate(results):
        j = res.get("same_as")
        if j is not None and not (isinstance(j, int) and 0 <= j < i):
            problems.append(f"{cid}: result {i + 1}: same_as {j!r} must name an earlier result (0-based)")
    for i, res in enumerate(results):
        cap = res.get("cap", {})
        if (cap.get("note_counts") or cap.get("note_lines")) and cap.get("truncated") is not True:
            problems.append(f"{cid}: result {i + 1}: note_counts/note_lines presuppose an announced cut: check truncated: true too")
    for name in case.get("expect", {}).get("invocations", {}):
        if name not in tools:
            problems.append(f"{cid}: invocations names unknown tool {name!r}")
    problems += fair_class_problems(cid, case)
    return problems


# --------------------------------------------------------------------------------------- blame


def live_checks(case):
    """Every check the runner makes on this case: [(result index or None, kind, default owner)]."""
    calls = case.get("calls", [])
    expect = case.get("expect", {})
    results = expect.get("results", [])
    ids = [call_id(c) for c in calls]
    out = []
    for i, res in enumerate(results):
        call = calls[i] if i < len(calls) else {}
        out.append((i, "answered"))
        if "tool_use_id" not in res:
            cid = call_id(call)
            if cid and ids.count(cid) == 1:
                out.append((i, "tool_use_id"))
        elif isinstance(res["tool_use_id"], str):
            out.append((i, "tool_use_id"))
        for kind in ("is_error", "class", "retryable", "same_as"):
            if kind in res:
                out.append((i, kind))
        for kind in ("represents_output", "repaired", "wrapped"):
            if res.get(kind):
                out.append((i, kind))
        for key, value in res.get("content", {}).items():
            if isinstance(value, list) and not value:
                continue
            out.append((i, f"content.{key}"))
        for key in res.get("cap", {}):
            out.append((i, f"cap.{key}"))
        for key in res.get("blocks", {}):
            out.append((i, f"blocks.{key}"))
        out.append((i, "replay"))
    out += [(None, "results.count"), (None, "text.valid"), (None, "cap.within")]
    if any(isinstance(b.get("raise"), dict) and b["raise"].get("kind") == "internal"
           for t in case.get("tools", []) for b in walk_behaviors(t.get("behavior"))):
        out.append((None, "secret"))
    if expect.get("invocations"):
        out.append((None, "invocations"))
    if invalid_call_tools(case):
        out.append((None, "invalid_not_run"))
    if "received_args" in expect:
        out.append((None, "received_args"))
    if "runs_only_with" in expect:
        out.append((None, "runs_only_with"))
    if expect.get("history_unchanged"):
        out.append((None, "history_unchanged"))
    if expect.get("stopped"):
        out.append((None, "stopped"))
    if expect.get("repeatable"):
        out.append((None, "repeatable"))
    if "linear_time" in expect:
        out.append((None, "linear_time"))
    for key in ("kept", "cleaned", "bounded", "distinct"):
        if expect.get("spills", {}).get(key):
            out.append((None, f"spill.{key}"))
    checks = []
    for i, kind in out:
        default = DEFAULT_OWNER.get(kind)
        if kind == "cap.truncated":
            default = TRUNCATED_OWNER[bool(results[i]["cap"]["truncated"])]
        checks.append((i, kind, default))
    return checks


def invalid_call_tools(case):
    """The tools VAL-1's canary watches: those a call whose expected class includes
    `invalid_arguments` names, whose runs the case counts (conformance/suite/src/blame.rs)."""
    expect = case.get("expect", {})
    counted = expect.get("invocations", {})
    out = set()
    for call, res in zip(case.get("calls", []), expect.get("results", [])):
        cls = res.get("class")
        classes = cls if isinstance(cls, list) else [cls] if cls else []
        name = call.get("name") if isinstance(call, dict) else None
        if "invalid_arguments" in classes and isinstance(name, str) and name in counted:
            out.add(name)
    return out


def matches(key, kind):
    return key == kind or (key in GROUPS and kind.startswith(key + "."))


def resolve(case, index, kind, default):
    """(owner, (scope, key)) for one check: results[i].blame, then expect.blame, then the default."""
    expect = case.get("expect", {})
    scopes = []
    if index is not None:
        scopes.append((index, expect.get("results", [])[index].get("blame", {})))
    scopes.append((None, expect.get("blame", {})))
    for scope, blame in scopes:
        for key in (kind, kind.split(".")[0]):
            if key in blame and matches(key, kind):
                return blame[key], (scope, key)
    # The answer is promised by whoever owns the result's `is_error` check.
    if kind == "answered" and index is not None and "is_error" in expect.get("results", [])[index]:
        owner, used = resolve(case, index, "is_error", None)
        if owner is not None:
            return owner, ("via", "is_error")
    return default, None


def owners(case):
    """[(result index or None, kind, owner, how)] for every check and owner (a blame value may
    name several requirements: one row each); how is the (scope, key) that named it, or None."""
    out = []
    for index, kind, default in live_checks(case):
        owner, used = resolve(case, index, kind, default)
        for one in owner if isinstance(owner, list) else [owner]:
            out.append((index, kind, one, used))
    return out


def blame_problems(cid, case, reqs):
    """Loader rules 1-3 and 5 of docs/DESIGN.md, and the Applies rule."""
    problems = []
    expect = case.get("expect", {})
    listed = case.get("requirements", [])
    checks = owners(case)
    used = {u for *_, u in checks if u is not None}
    # Rule 1: every key is a known kind or group and resolves some check of its scope.
    scopes = [(None, expect.get("blame", {}), RESULT_KINDS | CASE_KINDS)]
    scopes += [(i, r.get("blame", {}), RESULT_KINDS) for i, r in enumerate(expect.get("results", []))]
    for scope, blame, vocabulary in scopes:
        where = "expect.blame" if scope is None else f"result {scope + 1}'s blame"
        for key in blame:
            if key not in vocabulary and key not in GROUPS:
                problems.append(f"{cid}: {where}: {key!r} is not a check kind or group of that scope")
            elif (scope, key) not in used:
                problems.append(f"{cid}: {where}: {key!r} blames no check (nothing of that kind is checked there, or a more specific key wins)")
    # Rule 2: every check has an owner, listed in `requirements` (universal defaults excepted).
    for index, kind, owner, how in checks:
        where = kind if index is None else f"result {index + 1}: {kind}"
        if owner is None:
            problems.append(f"{cid}: {where} has no owner: blame it (expect.blame or the result's blame)")
        elif owner not in listed and not (kind in UNIVERSAL and how is None):
            problems.append(f"{cid}: {where} is owned by {owner}, which `requirements` does not list")
        elif reqs is not None and owner not in reqs:
            problems.append(f"{cid}: {where} is owned by {owner}, which SPEC.md does not define")
    # Rule 3: every listed requirement owns at least one check.
    owned = {owner for *_, owner, _ in checks}
    for rid in listed:
        if rid not in owned:
            problems.append(f"{cid}: lists {rid}, but no check of the case is owned by it (blame one, or drop it)")
    # Rule 5: a case in a cap area lists a CAP-* or HT-* requirement, which makes it a cap case:
    # its content is checked against the cap even on a harness without one (the nominal cap).
    if cid.split("/")[0] in CAP_AREAS and not any(r.startswith(("CAP-", "HT-", "STRAT-")) for r in listed):
        problems.append(f"{cid}: a case in a cap area must list a CAP-* or HT-* requirement (it is then a cap case, checked against the cap even on a harness without one)")
    # Applies: a check owned by a requirement that applies only with some capabilities runs only
    # on harnesses that have them, so the case must need them.
    if reqs is not None:
        needs = case_needs(case)
        for rid in sorted({o for *_, o, _ in checks if o in reqs}):
            # `call_ids` is judged check by check instead: on a harness without the model's ids
            # the runner does not run `tool_use_id` checks (conformance/suite/src/checks.rs), so a case
            # that only echoes ids runs there and needs nothing.
            missing = [n for n in reqs[rid]["applies"] if n not in needs and n not in RUNNER_JUDGED_APPLIES]
            if missing:
                problems.append(f"{cid}: owns checks of {rid}, which applies only with {missing}; the case must need them")
    return problems


def case_needs(case):
    """Declared needs plus those the runner derives from the case's text (conformance/suite/src/needs.rs)."""
    needs = set(case.get("needs", []))
    for call in case.get("calls", []):
        if "arguments_text" in call:
            needs.add("call_form.arguments_text")
        if "raw" in call:
            needs.add("call_form.raw")
    cap = case.get("config", {}).get("cap", {})
    if "limit" in cap:
        needs.add("cap.configurable")
    if "unit" in cap:
        needs.add(f"cap.unit.{cap['unit']}")
    if "strategy" in cap:
        needs.add(f"cap.strategy.{cap['strategy']}")
    elif is_cap_case(case):
        # A cap case naming no strategy judges a cut (conformance/suite/src/needs.rs).
        needs.add("cap.cuts")
    if "offered" in case:
        needs.add("feature.offered-tools")
    if "stop_reason" in case:
        needs.add("feature.stop-reason")
    if "cancel_after_ms" in case:
        needs.add("feature.cancel")
    if case.get("parallel_calls") is False:
        needs.add("feature.serial-calls")
    if "resume" in case:
        needs.add("feature.resume")
    if "spill_lifecycle" in case:
        needs.add("feature.spill-lifecycle")
    if "pause" in case:
        needs.add("feature.pause")
    if "image_limit" in case.get("config", {}):
        needs.add("feature.image-limits")
    if "remaining" in (case.get("config", {}).get("cap") or {}):
        needs.add("feature.context-cap")
    for t in case.get("tools", []):
        out = final_output(t.get("behavior"))
        if isinstance(out, dict) and "mcp_result" in out:
            needs.add("feature.mcp-client")
        if isinstance(out, dict) and "content_blocks" in out:
            needs.add("behavior.content_blocks")
        if isinstance(out, dict) and "stream" in out:
            needs.add("behavior.stream")
        if isinstance(out, dict) and has_key(out.get("generate"), "note_copy"):
            # A forged copy of the harness's note is made from its declared form.
            needs.add("cap.note")
        if isinstance(out, dict) and has_key(out.get("generate"), "wrapper_copy"):
            # A forged wrapper marker is made from the harness's declared markers.
            needs.add("wrapper")
    needs |= {f"feature.{f}" for f in implied_features(case)}
    return needs


def has_key(node, key):
    """Whether `key` is a key anywhere in `node` (a generated output's description)."""
    if isinstance(node, dict):
        return key in node or any(has_key(v, key) for v in node.values())
    if isinstance(node, list):
        return any(has_key(v, key) for v in node)
    return False


def is_cap_case(case):
    """conformance/suite/src/case.rs `Case::is_cap_case`."""
    if any(r.startswith(("CAP-", "HT-", "STRAT-")) for r in case.get("requirements", [])):
        return True
    if "cap" in case.get("config", {}):
        return True
    if any("cap" in r for r in case.get("expect", {}).get("results", [])):
        return True
    return any(relative_size(t.get("behavior")) for t in case.get("tools", []))


def relative_size(node):
    """Whether a behaviour holds a size relative to the cap (`{"cap": k, "plus": n}`)."""
    if isinstance(node, dict):
        if "cap" in node and "plus" in node:
            return True
        return any(relative_size(v) for v in node.values())
    if isinstance(node, list):
        return any(relative_size(v) for v in node)
    return False


def implied_features(case):
    """The security features a case's fields imply (harness_conformance_protocol::implied_features)."""
    out = set()
    security = case.get("security", {})
    if "budget" in security:
        out.add("budget")
    if "workspace" in security:
        out.add("path-confinement")
    for tool in case.get("tools", []):
        p = tool.get("policy", {})
        if "capability" in p or p.get("requires_approval") or p.get("sensitive"):
            out.add("authorization")
        if p.get("cost", 0) > 0:
            out.add("budget")
        if p.get("prepare_commit"):
            out.add("prepare-commit")
        if p.get("paths"):
            out.add("path-confinement")
        if "bounds" in p:
            out.add("bounds")
    contexts = [case.get("context") or {}]
    for call in case.get("calls", []):
        if "idempotency_key" in call:
            out.add("idempotency")
        if call.get("prepare") or "commit" in call:
            out.add("prepare-commit")
        contexts.append(call.get("context") or {})
    if any("targets" in c for c in contexts):
        out.add("authorization")
    return out


# ---------------------------------------------------------------------------------------- main


def load_cases(root: Path):
    cases, problems = {}, []
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).with_suffix("").as_posix()
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


def check_corpus(cases, reqs):
    """Every problem of the corpus against the parsed SPEC (case rules, blame, Cases: lines)."""
    problems = []
    for cid, case in cases.items():
        problems += check_case(cid, case)
        problems += blame_problems(cid, case, reqs)
    by_req = cases_by_requirement(cases)
    for rid, cids in sorted(by_req.items()):
        if rid not in reqs:
            problems.append(f"requirement {rid} is used by {len(cids)} case(s) (e.g. {cids[0]}) but not defined in SPEC.md")
    for rid, req in reqs.items():
        actual = sorted(by_req.get(rid, []))
        if req["cases"] is not None and sorted(req["cases"]) != actual:
            missing = sorted(set(actual) - set(req["cases"]))
            extra = sorted(set(req["cases"]) - set(actual))
            problems.append(f"{rid}: Cases line out of date (missing {missing[:3]}, extra {extra[:3]}); run with --write")
        if req["level"] == "MUST" and not actual:
            problems.append(f"{rid} (MUST) has no case")
    return problems


def cases_by_requirement(cases):
    by_req = {}
    for cid, case in cases.items():
        for rid in case.get("requirements", []):
            by_req.setdefault(rid, []).append(cid)
    return by_req


def print_owners(cases, ids):
    for cid in ids:
        case = cases.get(cid)
        if case is None:
            print(f"{cid}: no such case")
            continue
        print(f"{cid}  requirements: {', '.join(case.get('requirements', []))}")
        for index, kind, owner, how in owners(case):
            where = "case" if index is None else f"result {index + 1}"
            source = "default" if how is None else ("expect.blame" if how[0] is None else "result blame") + f"[{how[1]}]"
            print(f"  {where:<10} {kind:<22} {owner or '(no owner)':<10} {source}")


def main(argv):
    problems = []
    cases, p = load_cases(CASES)
    problems += p
    if "--owners" in argv:
        print_owners(cases, argv[argv.index("--owners") + 1:])
        return 0
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
    text = SPEC.read_text(encoding="utf-8")
    reqs, p = load_spec(text)
    if "--write" in argv:
        text = write_cases_lines(text, reqs, cases_by_requirement(cases))
        SPEC.write_text(text, encoding="utf-8")
        reqs, p = load_spec(text)
    problems += p
    problems += check_corpus(cases, reqs)
    for line in problems:
        print(line)
    levels, areas = {}, {}
    for req in reqs.values():
        levels[req["level"]] = levels.get(req["level"], 0) + 1
    for cid in cases:
        areas[cid.split("/")[0]] = areas.get(cid.split("/")[0], 0) + 1
    print(f"{len(cases)} cases in {len(areas)} areas; {len(reqs)} requirements "
          + ", ".join(f"{n} {lv}" for lv, n in sorted(levels.items())) + f"; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
