"""Finds an agent's output cap by experiment: what the model sees for outputs of growing size.

Why this exists: an agent's cap is a capability the adapter declares (`Agent.cap`), and it must be
the cap the agent really enforces, observed, not read from its docs. For each named size this
serves one call to a tool returning that many units of a filler (`x`, or a two-byte `é` with
`--char é`) and prints what the model was shown: its length in chars and UTF-8 bytes, whether it
still holds the whole output, and its first and last characters. `--find LOW HIGH` bisects for
the largest size that passes whole (the cap, in the filler's units).

    python3 conformance/wire/capsweep.py qwen-code 10000 40000 100000
    python3 conformance/wire/capsweep.py --find 1000 200000 copilot
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import agent as wire  # noqa: E402


def case_for(size: int, char: str) -> dict:
    return {
        "id": f"wire/capsweep-{size}",
        "tools": [{"name": "fetch", "description": "Fetch the page.", "input_schema": {"type": "object"},
                   "behavior": {"return": {"generate": {"repeat": char, "size": size}}}}],
        "calls": [{"id": "call_01", "name": "fetch", "input": {}}],
    }


def shown(agent: wire.Agent, size: int, char: str) -> dict:
    """What the model saw for one output of `size` units of `char` (chars: the unit is the char)."""
    case = case_for(size, char)
    outcome = wire.converse(agent, case, "chars")
    if not outcome.results:
        return {"size": size, "results": 0, "unanswered": outcome.unanswered}
    content = outcome.results[0]["content"]
    run = char * size
    return {"size": size, "chars": len(content), "bytes": len(content.encode("utf-8", "surrogatepass")),
            "whole": run in content, "head": content[:120], "tail": content[-160:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent")
    parser.add_argument("sizes", nargs="*", type=int)
    parser.add_argument("--char", default="x")
    parser.add_argument("--find", nargs=2, type=int, metavar=("LOW", "HIGH"))
    args = parser.parse_args()
    agent = wire.load(args.agent)
    for size in args.sizes:
        print(json.dumps(shown(agent, size, args.char), ensure_ascii=False), flush=True)
    if args.find:
        low, high = args.find  # low passes whole, high does not (checked first)
        for size in (low, high):
            found = shown(agent, size, args.char)
            print(json.dumps(found, ensure_ascii=False), flush=True)
        while high - low > max(1, low // 1000):
            middle = (low + high) // 2
            found = shown(agent, middle, args.char)
            print(json.dumps(found, ensure_ascii=False), flush=True)
            low, high = (middle, high) if found.get("whole") else (low, middle)
        print(f"{args.agent}: {low} passes whole, {high} does not ({args.char!r})")


if __name__ == "__main__":
    main()
