"""A protocol adapter that proves the wire parser loses nothing: harness-ref's results, round-tripped.

Why this exists: a wire adapter reports what it parses off an agent's follow-up request. That
is only trustworthy if parsing gives back exactly what the harness produced. This adapter sits
between the runner and the reference adapter: for every case it forwards the run, takes
harness-ref's results, and for each dialect (1) serves the case's calls through a real fake
provider over loopback HTTP (when the dialect can carry them), (2) writes the results into the
follow-up request as an agent would (tests/agent_side.py), (3) posts it, and (4) compares what
the provider parsed with what harness-ref produced: the count, order, ids, texts, and the error
flag on the wires that have one. Any difference is answered as an `error` naming the dialect and
the field, so the run shows it as ERROR; otherwise the reference's reply goes back unchanged and
the suite must pass exactly as it does against the reference.

    harness-conformance run --harness 'python3 conformance/wire/tests/roundtrip.py target/release/harness-ref-adapter'
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import agent_side  # noqa: E402
import dialects  # noqa: E402
import provider  # noqa: E402
from test_provider import PATHS, first_request, post  # noqa: E402

FLAGGED = (dialects.ANTHROPIC, dialects.GEMINI)


def wire_calls(case: dict) -> list[dict]:
    return [dict(call) for call in case["calls"]]


def mismatch(dialect: str, case: dict, results: list[dict]) -> str | None:
    """None when the dialect's round trip gives `results` back exactly, else what differs."""
    calls = wire_calls(case)
    try:
        dialects.check(dialect, calls, False)
    except dialects.Unexpressible:
        calls = []  # the dialect cannot carry these calls: check the parsing alone
    conversation = provider.Conversation(calls, [])
    with provider.Provider(conversation) as fake:
        status, _, _ = post(fake.port, PATHS[dialect], first_request(dialect, False))
        if status != 200 or conversation.state != "wait":
            return f"the tool turn was not served (HTTP {status}, {conversation.problem or conversation.state})"
        calls = [{"id": c.get("id"), "name": c.get("name")} for c in case["calls"] if isinstance(c, dict) and "raw" not in c]
        status, _, _ = post(fake.port, PATHS[dialect], agent_side.follow_up(dialect, calls, results))
        if status != 200:
            return f"the follow-up request got HTTP {status}"
    parsed = conversation.results()
    if len(parsed) != len(results):
        return f"{len(results)} result(s) sent, {len(parsed)} parsed"
    for index, (sent, got) in enumerate(zip(results, parsed)):
        for field in ("tool_use_id", "content") + (("is_error",) if dialect in FLAGGED else ()):
            if sent[field] != got[field]:
                return f"result {index}: {field} {json.dumps(sent[field])[:200]} came back as {json.dumps(got[field])[:200]}"
    return None


def main() -> None:
    reference = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        reference.stdin.write(line if line.endswith("\n") else line + "\n")
        reference.stdin.flush()
        if message.get("cmd") == "stop":
            break
        answer = reference.stdout.readline()
        if message.get("cmd") == "run":
            reply = json.loads(answer)
            problems = []
            if "results" in reply:
                for dialect in dialects.ALL:
                    problem = mismatch(dialect, message["case"], reply["results"])
                    if problem:
                        problems.append(f"{dialect}: {problem}")
            if problems:
                answer = json.dumps({"seq": reply["seq"], "case": reply["case"],
                                     "error": "wire round trip lost data: " + "; ".join(problems)[:4000]}) + "\n"
        sys.stdout.write(answer)
        sys.stdout.flush()
    reference.stdin.close()
    reference.wait(5)


if __name__ == "__main__":
    main()
