"""Where one case's time goes, per agent: start-up, the tool turn, shutdown (docs/benchmarks.md).

Why this exists: a coding-agent column costs one CLI run per case, and what to speed up depends on
which phase dominates. This runs one small case (an echo tool, two calls) through each named agent
adapter's driver `--runs` times, one after another, and prints the median of each phase, measured
from the fake provider's clock:

  start-up   agent launched → its conversation request (process start, config, MCP server listed)
  turn       tool turn served → the follow-up request captured (MCP calls, the agent's own dispatch)
  shutdown   follow-up captured → the agent exited (agent.py waits at most 3 s, then stops it)
  wall       launched → exited or stopped
  cpu        user + system seconds of the agent and the children it reaped

    python3 conformance/wire/profile.py --runs 5 codex claude-code
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import agent as wire  # noqa: E402

CASE = {
    "id": "wire/profile",
    "tools": [{"name": "echo", "description": "Echo the arguments.",
               "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
               "behavior": {"return": {"echo_args": True}}}],
    "calls": [{"id": "call_01", "name": "echo", "input": {"q": "a"}},
              {"id": "call_02", "name": "echo", "input": {"q": "b"}}],
}


def phases(outcome: wire.Outcome) -> dict:
    """The phase durations of one conversation (seconds), from its request log and timings."""
    t = outcome.timings
    model = [r for r in outcome.requests if r["dialect"]]
    served = [r["at"] for r in model if r["state"] == "emit"]
    captured = [r["at"] for r in model if r["state"] == "wait"]
    end = t.get("exited", t.get("stopped"))
    found = {"wall": end - t["launched"], "requests": len(outcome.requests)}
    if served:
        found["start-up"] = served[-1] - t["launched"]
    if served and captured:
        found["turn"] = captured[-1] - served[-1]
    if captured:
        found["shutdown"] = end - captured[-1]
    found["stopped"] = "stopped" in t
    return found


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def profile(name: str, runs: int) -> dict:
    agent = wire.load(name)
    unit = wire.unit_for(agent, CASE)
    rows = []
    for _ in range(runs):
        before, started = cpu(), time.monotonic()
        outcome = wire.converse(agent, json.loads(json.dumps(CASE)), unit)
        row = phases(outcome)
        row["cpu"] = cpu() - before
        row["process"] = time.monotonic() - started
        rows.append(row)
    keys = ("start-up", "turn", "shutdown", "wall", "cpu", "process")
    summary = {k: round(statistics.median(r[k] for r in rows if k in r), 2) for k in keys if any(k in r for r in rows)}
    summary["requests"] = statistics.median(r["requests"] for r in rows)
    summary["stopped"] = sum(1 for r in rows if r["stopped"])
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (1 min); medians of {args.runs} runs, seconds")
    for name in args.agents:
        print(f"{name}: {json.dumps(profile(name, args.runs))}", flush=True)


if __name__ == "__main__":
    main()
