"""The cut-off scenario: a turn that stopped for max tokens inside a call's JSON, per agent.

Why this exists: no case file can say "the provider stopped mid-call" (that is a property of the
wire, not of the calls), yet "a cut-off call never runs" is exactly what a wire harness must get
right. For each named agent adapter this serves one turn with two calls to an echo tool — the
first complete, the second cut in half by a max-tokens stop (`max_tokens`, `max_output_tokens`,
`length`) — and reports what the agent did: whether the cut call ran (it must not, whatever
its half-JSON parses to), whether the complete call ran (either is a valid design), and what
the next request showed the model. With `--expect FILE` it compares the findings with the
recorded ones and exits 1 on any change, like a baseline.

    python3 conformance/wire/cutoff.py codex claude-code opencode
    python3 conformance/wire/cutoff.py --expect conformance/wire/cutoff-expected.json codex claude-code
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import agent as wire  # noqa: E402

CUT_MARK = "CUT-OFF-CALL-7c41d0"
CASE = {
    "id": "wire/cut-off-call-never-runs",
    "tools": [{"name": "echo", "description": "Echo the arguments.",
               "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
               "behavior": {"return": {"echo_args": True}}}],
    "calls": [{"id": "toolu_01", "name": "echo", "input": {"q": "COMPLETE-CALL"}},
              {"id": "toolu_02", "name": "echo", "input": {"q": CUT_MARK, "more": "x" * 40}}],
}


def scenario(name: str) -> dict:
    agent = wire.load(name)
    case = json.loads(json.dumps(CASE))
    try:
        outcome = wire.converse(agent, case, wire.unit_for(agent, case), cut_off=True)
    except wire.Skip as skip:
        return {"applies": False, "why": str(skip)}
    except wire.NeverAsked as never:
        return {"applies": True, "error": str(never)[:500]}
    ran = [json.dumps(i["args"]) for i in outcome.invocations]
    return {
        "applies": True,
        "cut_call_ran": any("CUT-OFF" in args for args in ran),
        "complete_call_ran": any("COMPLETE-CALL" in args for args in ran),
        "results_shown": [{"tool_use_id": r["tool_use_id"], "content": r["content"][:200]} for r in outcome.results],
        "requests_after_the_turn": max(0, sum(1 for r in outcome.requests if r["dialect"]) - 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="+")
    parser.add_argument("--expect", help="JSON file of recorded findings (cut_call_ran, complete_call_ran per agent)")
    args = parser.parse_args()
    expected = json.load(open(args.expect)) if args.expect else {}
    status = 0
    for name in args.agents:
        found = scenario(name)
        print(f"{name}: {json.dumps(found, ensure_ascii=False)}")
        if "error" in found:
            status = 1
        want = expected.get(name)
        if want is not None:
            got = {k: found.get(k) for k in want}
            if got != want:
                print(f"{name}: changed: expected {json.dumps(want)}, found {json.dumps(got)}")
                status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
