"""The in-process provider the library columns drive their SDKs' clients with: the case's turn for
the first request, the final text after it, and the results read from the request after the turn."""

from __future__ import annotations

import json
import os
import sys
import unittest

WIRE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, WIRE)

import behaviours  # noqa: E402,F401  (puts the Python adapter kit on the path)
import dialects  # noqa: E402
from harness_conformance_adapter import Skip, Turn  # noqa: E402
from harness_conformance_adapter.behaviours import Errors  # noqa: E402
from harness_conformance_adapter.case import Case  # noqa: E402
from inprocess import ScriptedProvider  # noqa: E402


def turn(calls: list) -> Turn:
    case = Case.parse({"id": "wire/inprocess", "tools": [], "calls": calls})
    return Turn(case=case, unit="chars", errors=Errors(RuntimeError, RuntimeError, RuntimeError))


class ScriptedProviderTest(unittest.TestCase):
    def test_the_turn_comes_first_then_the_final_text_and_the_results_are_read_back(self):
        provider = ScriptedProvider(dialects.ANTHROPIC, turn([{"id": "toolu_1", "name": "t", "input": {"q": 1}}]), "m")
        self.assertIsNone(provider.results())
        first = json.loads(provider.answer(b'{"messages": []}'))
        self.assertEqual(first["stop_reason"], "tool_use")
        self.assertEqual(first["content"], [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"q": 1}}])
        follow_up = {"messages": [{"role": "assistant", "content": first["content"]}, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok", "is_error": True}]}]}
        second = json.loads(provider.answer(json.dumps(follow_up).encode()))
        self.assertEqual(second["content"], [{"type": "text", "text": dialects.FINAL_TEXT}])
        self.assertEqual(provider.next_request(), follow_up)
        results = provider.results()
        self.assertEqual([(r["tool_use_id"], r["is_error"], r["content"]) for r in results], [("toolu_1", True, "ok")])

    def test_a_call_the_wire_cannot_carry_is_a_skip(self):
        with self.assertRaises(Skip):
            ScriptedProvider(dialects.GEMINI, turn([{"id": "c", "name": "t", "arguments_text": "{}"}]), "m")


if __name__ == "__main__":
    unittest.main()
