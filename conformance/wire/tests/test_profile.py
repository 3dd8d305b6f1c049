"""profile.py's phases, from a conversation's request log and the driver's timings (no agent)."""

from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import agent  # noqa: E402
import profile as wire_profile  # noqa: E402


class Phases(unittest.TestCase):
    def test_start_up_turn_and_shutdown_are_cut_at_the_served_and_the_captured_request(self):
        requests = [
            {"dialect": None, "state": "emit", "at": 0.5},  # a model list: not the conversation's
            {"dialect": "openai-chat", "state": "emit", "at": 2.0},  # a title request, before the turn
            {"dialect": "openai-chat", "state": "emit", "at": 3.0},  # the turn served
            {"dialect": "openai-chat", "state": "wait", "at": 3.5},  # the follow-up captured
            {"dialect": "openai-chat", "state": "done", "at": 3.6},
        ]
        outcome = agent.Outcome(requests=requests, timings={"launched": 1.0, "finished": 3.5, "exited": 4.0})
        found = wire_profile.phases(outcome)
        self.assertEqual((found["start-up"], found["turn"], found["shutdown"], found["wall"]), (2.0, 0.5, 0.5, 3.0))
        self.assertFalse(found["stopped"])

    def test_an_agent_that_never_answered_has_no_turn(self):
        outcome = agent.Outcome(requests=[{"dialect": "anthropic-messages", "state": "emit", "at": 2.0}],
                                timings={"launched": 1.0, "finished": 9.0, "stopped": 9.5})
        found = wire_profile.phases(outcome)
        self.assertNotIn("turn", found)
        self.assertTrue(found["stopped"])
        self.assertEqual(found["wall"], 8.5)


if __name__ == "__main__":
    unittest.main()
