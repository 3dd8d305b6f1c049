#!/usr/bin/env python3
"""Write each adapter's baseline.json from a real run, with one plain-words reason per failing case.

Why this exists: `harness-conformance run --write-baseline` records the runner's first finding,
which is precise but terse ("expected 1 result(s), one per call; the harness returned 0"). A
baseline is read by people deciding whether a harness suits them, so each entry should say what
the harness DID. This script reads a run's JSON report, looks at the case (from `copy`) and, for
calls that got no result, re-runs that one case through the adapter to capture the exception the
harness raised (adapters write it to stderr). Nothing is invented: every reason is built from the
run's findings, the case's own calls, and the adapter's stderr.

    harness-conformance copy /tmp/suite
    harness-conformance run --harness conformance/adapters/NAME/run --format json -o /tmp/NAME.jsonl \
        --write-baseline /tmp/NAME.baseline.json
    python3 conformance/adapters/write_baselines.py [--fresh] NAME /tmp/NAME.jsonl /tmp/suite \
        'conformance/adapters/NAME/run' /tmp/NAME.baseline.json

(conformance/adapters/regenerate_baselines.sh does all of this for every column.)
WRITE_BASELINES_RERUN=0 skips the re-runs: reasons then come from the findings and the case alone
(minutes instead of up to half an hour for a column whose harness raises for whole turns).

The baseline is the runner's own (format 2: the requirements each case fails, the skipped cases,
the MUST requirements that cannot be tested, each with the runner's reason); this script replaces
each failing case's reason with a plain-words one and keeps everything else as the runner wrote it.
A reason already in the column's baseline.json was reviewed by a person: it is kept where that
case still fails exactly the same requirements (`--fresh` rewrites every reason).

Reasons blame what the model saw: a call that got no result is described as that ("raises instead
of answering ..."), before any finding about the size or wording of results that do not exist.

Standard library only.
"""

import json
import os
import re
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
Q = r'"((?:[^"\\]|\\.)*)"'  # a quoted string as the runner prints it (JSON escapes)


def unquote(text):
    try:
        return json.loads('"' + text + '"')
    except ValueError:
        return text


def short(value, limit=70):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def wire_case(case):
    return {k: case[k] for k in ("id", "config", "tools", "calls") if k in case}


def has_relative_size(value):
    if isinstance(value, dict):
        if "cap" in value and "plus" in value or (set(value) == {"cap"} and isinstance(value["cap"], (int, float))):
            return True
        return any(has_relative_size(v) for v in value.values())
    if isinstance(value, list):
        return any(has_relative_size(v) for v in value)
    return False


def raised(command, case):
    """The first `harness raised ...` line the adapter writes for this case, or None."""
    if has_relative_size(case.get("tools")):
        return None
    lines = [{"cmd": "start", "protocol": 1}, {"cmd": "run", "seq": 1, "case": wire_case(case)}, {"cmd": "stop"}]
    if os.environ.get("WRITE_BASELINES_RERUN", "1") == "0":
        return None
    stdin = "".join(json.dumps(m) + "\n" for m in lines)
    # The adapter runs in its own process group, so that a timeout ends it and everything it
    # started (killing only `sh` would leave the harness running).
    proc = subprocess.Popen(["sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # generous: starting a Python harness on a loaded 2-core machine can take a minute or more
        _, stderr = proc.communicate(stdin, timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    for line in stderr.splitlines():
        match = re.match(r"harness raised: (.*) \[for call ", line)
        if match:
            return match.group(1)
    return None


def exception_words(text):
    text = re.sub(r"^(?:\w+\.)+(\w+)", r"\1", text)  # module path off the exception's type
    text = re.sub(r" During task with name .*", "", text)  # langgraph's note, with a random task id
    return short(text, 150)


NO_ID = re.compile(r"expected tool_use_id .*, the harness returned null")


def reason_for(outcome, case, command, turn_wide):
    messages = outcome.get("messages") or []
    # A harness whose results carry no id at all (smolagents' combined observation) fails the id
    # check on every case; say what else failed, then that.
    others = [m for m in messages if not NO_ID.search(m)]
    if len(others) < len(messages):
        if not others:
            return "answers without a tool-use id: nothing ties the result to its call"
        return reason_for({**outcome, "messages": others}, case, command, turn_wide) + "; and the answer carries no tool-use id"
    joined = " / ".join(messages)
    calls = case.get("calls", [])
    sent = [(c.get("arguments_text", c.get("input")) if isinstance(c, dict) else c) for c in calls]

    got = re.search(r"expected (\d+) result\(s\), one per call; the harness returned (\d+)", joined)
    if got:
        what = raised(command, case)
        scope = "the whole turn" if turn_wide else "that call"
        if what:
            return f"raises instead of answering ({exception_words(what)}); the model gets no result for {scope}"
        if any(isinstance(c, dict) and "arguments_text" in c for c in calls):
            return (f"returns {got.group(2)} result(s) for {got.group(1)} call(s) and raises nothing: a call whose "
                    "arguments text does not parse is dropped without an answer")
        if "timeout" in case["id"] or "deadline" in case["id"]:
            return f"a call past its deadline raises a timeout in the caller instead of producing a result; the model gets no result for {scope}"
        return f"returns {got.group(2)} result(s) for {got.group(1)} call(s); the model gets no answer for the rest"
    if "declares no output cap" in joined or "declares no cap" in joined:
        size = re.search(r"content is (\d+) (chars|bytes)", joined)
        if size:
            return f"has no output cap: the whole {size.group(1)}-{size.group(2)[:-1]} output reaches the model uncut, with no note"
        return "has no output cap, so it cannot be held to one (the output reaches the model uncut)"
    if "leaks an internal error" in joined:
        shown = re.search(r"generic message: " + Q, joined)
        return f"shows the internal exception's text to the model: {short(unquote(shown.group(1)) if shown else '', 80)}"
    ran = re.search(r"expected the handler of `([^`]+)` to run 0 time\(s\), it ran (\d+) time\(s\) with arguments (.*)", joined)
    if "expected is_error true" in joined and ran:
        received = ran.group(3)
        if case["id"].startswith("correlation/") and re.search(r"(^|-)(ids?|duplicate)(-|$)", case["id"].split("/")[1]):
            ids = [c.get("id") for c in calls if isinstance(c, dict)]
            return f"runs calls whose ids are {short(ids, 60)} like any other call and answers them as successes"
        first_sent = next((s for s in sent if s is not None), None)
        shown = short(json.dumps(first_sent, ensure_ascii=False), 60)
        if first_sent is not None and json.dumps(first_sent, sort_keys=True) != re.sub(r"\s", "", received.split("}, {")[0]):
            return f"accepts {shown} and runs the handler with {short(received, 60)}"
        return f"accepts {shown} and runs the handler as if it were valid"
    if "expected is_error true" in joined:
        content = re.search(r'expected is_error true, the harness returned is_error false code \(none\) content ' + Q, joined)
        return f"answers as a success: {short(unquote(content.group(1)) if content else '', 60)}"
    if "expected is_error false" in joined:
        content = re.search(r'content ' + Q, joined)
        return f"refuses a valid call: {short(unquote(content.group(1)) if content else '', 80)}"
    big = re.search(r"expected content of at most (\d+) (chars|bytes), the harness returned (\d+)", joined)
    if big:
        return f"the error message is not bounded: {big.group(3)} {big.group(2)} (it repeats the oversized value)"
    lacks = re.search(r'expected content containing (.*?), the harness returned ' + Q, joined)
    if lacks:
        return f"the message does not contain {lacks.group(1)}: {short(unquote(lacks.group(2)), 80)}"
    has = re.search(r"expected content without (.*?), the harness returned", joined)
    if has:
        return f"the message repeats what it should not: {short(has.group(1), 70)}"
    empty = re.search(r"expected content matching /(.*?)/, the harness returned " + Q, joined)
    if empty:
        text = unquote(empty.group(2))
        return "the error message is empty" if not text.strip() else f"the message does not match /{empty.group(1)}/: {short(text, 70)}"
    nocode = re.search(r"expected outcome class `(\w+)`; the adapter's code map has no code for it.*?returned (.*)", joined)
    if nocode:
        code = re.search(r'code "?(\w+)"?', nocode.group(2))
        return f"has no code of its own for {nocode.group(1)} (reports {code.group(1) if code else 'no code'})"
    wrongcode = re.search(r'expected code "(\w+)" \(class `(\w+)`\), the harness returned (.*)', joined)
    if wrongcode:
        return f"answers a {wrongcode.group(2)} call without its code {wrongcode.group(1)}: {short(wrongcode.group(3), 60)}"
    recv = re.search(r"expected the handlers to receive \[(.*)\], they received \[(.*)\]", joined)
    if recv:
        return f"the handler receives {short(recv.group(2), 60)} instead of {short(recv.group(1), 60)}"
    if "expected the transcript to keep" in joined:
        return "a handler's change to a value nested in its arguments reaches the transcript (the harness shares it instead of copying)"
    if "expected tool_use_id" in joined:
        return "answers with results whose ids do not match the calls in order"
    return short(messages[0] if messages else outcome["verdict"], 200)


def stable(reason):
    """A reason without what changes from run to run: coding agents' timings and temporary paths."""
    reason = re.sub(r"Wall time: [0-9.]+ seconds", "Wall time: … seconds", reason)
    return re.sub(r"/tmp/wire-[^\s\"'\\]*", "<temporary file>", reason)


def reviewed(name):
    """The column's current baseline entries ({case: entry}), whatever their format, or {}."""
    path = HERE / name / "baseline.json"
    if not path.exists():
        return {}
    old = json.loads(path.read_text())
    return old.get("cases", {}) if old.get("format") == 2 else {}


def main():
    args = sys.argv[1:]
    fresh = args[:1] == ["--fresh"]
    name, report, suite, command, written = args[1:6] if fresh else args[:5]
    kept = {} if fresh else reviewed(name)
    turn_wide = name in ("pydantic-ai", "langgraph-default", "langgraph-handle-errors", "inspect-ai", "smolagents",
                         "langchain-mcp-adapters")
    cases = {}
    for path in Path(suite, "cases").rglob("*.json"):
        case = json.loads(path.read_text())
        cases[case["id"]] = case
    baseline = json.loads(Path(written).read_text())
    entries = baseline.get("cases", {})
    reused = set()
    for case_id, entry in entries.items():
        old = kept.get(case_id)
        if old and old.get("reason") and old.get("fails") == entry.get("fails") and old.get("error") == entry.get("error"):
            entry["reason"] = old["reason"]
            reused.add(case_id)
    failing = [o for o in map(json.loads, open(report))
               if o.get("type") == "case" and o["verdict"] in ("FAIL", "ERROR", "XFAIL")
               and o["id"] in entries and o["id"] not in reused]
    # Two at a time: a reason may re-run its case through the adapter (the machine has 2 cores).
    with ThreadPoolExecutor(max_workers=2) as pool:
        reasons = pool.map(lambda o: reason_for(o, cases[o["id"]], command, turn_wide), failing)
        for o, reason in zip(failing, reasons):
            entries[o["id"]]["reason"] = stable(reason)
    out = HERE / name / "baseline.json"
    out.write_text(json.dumps(baseline, indent=2, ensure_ascii=False) + "\n")
    print(f"{out}: {len(entries)} case(s) ({len(reused)} reviewed reason(s) kept), "
          f"{len(baseline.get('skips', {}))} skip(s), {len(baseline.get('not_testable', {}))} not testable")


if __name__ == "__main__":
    main()
