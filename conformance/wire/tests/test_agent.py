"""The agent driver on the Python adapter kit: every agent's hello is valid, and one
conversation's outcome reaches the protocol reply as it was captured (no agent is started)."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

WIRE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, WIRE)

import agent  # noqa: E402
from harness_conformance_adapter import Implementation, hello  # noqa: E402

AGENTS = ("codex", "claude-code", "gemini-cli", "opencode", "qwen-code", "cline", "continue-cli", "copilot")
CASE = {
    "id": "wire/agent-test",
    "tools": [{"name": "echo", "description": "", "input_schema": {"type": "object"},
               "behavior": {"return": {"echo_args": True}}}],
    "calls": [{"id": "call_1", "name": "echo", "input": {"q": "a"}},
              {"id": "call_2", "name": "echo", "input": {"q": "b"}}],
}


class FakeAgent(agent.Agent):
    name = "fake"
    title = "fake agent"
    version = staticmethod(lambda: "0.0.0")  # nothing installed


class Hellos(unittest.TestCase):
    def test_every_agents_capabilities_pass_the_kits_checks(self):
        for name in AGENTS:
            with self.subTest(agent=name):
                declared = agent.load(name).capabilities()
                line = hello(Implementation(name, "wire", "0"), declared)["capabilities"]
                self.assertTrue(line["parallel"])
                self.assertEqual(line["keywords"], list(agent.KEYWORDS))

    def test_a_generated_size_counts_in_the_agents_declared_unit_unless_the_case_sets_one(self):
        codex, claude = agent.load("codex"), agent.load("claude-code")
        with mock.patch.object(agent.Agent, "version", lambda self: "0"):
            self.assertEqual(agent.unit_for(codex, CASE), "bytes")
            self.assertEqual(agent.unit_for(claude, CASE), "chars")
            in_chars = {**CASE, "config": {"cap": {"limit": 10, "unit": "chars", "strategy": "head_tail"}}}
            self.assertEqual(agent.unit_for(codex, in_chars), "chars")


class Replies(unittest.TestCase):
    def reply(self, outcome: agent.Outcome) -> tuple[dict, str]:
        log = io.StringIO()
        with mock.patch.object(agent, "converse", lambda a, case, unit, cut_off=False: outcome):
            body = agent.adapter(FakeAgent()).run_case(CASE, log)
        return body, log.getvalue()

    def test_results_and_invocations_as_captured(self):
        outcome = agent.Outcome(
            results=[{"tool_use_id": "call_2", "is_error": True, "content": "no", "native": {"k": 1}},
                     {"tool_use_id": None, "is_error": False, "content": "{\"q\": \"a\"}", "native": {}}],
            invocations=[{"tool": "echo", "args": {"q": "a"}}])
        body, _ = self.reply(outcome)
        self.assertEqual(body["results"], [
            {"tool_use_id": "call_2", "is_error": True, "content": "no", "native": {"k": 1}},
            {"tool_use_id": None, "is_error": False, "content": "{\"q\": \"a\"}", "native": {}}])
        self.assertEqual(body["invocations"], [{"tool": "echo", "args": {"q": "a"}}])  # the server sees no ids

    def test_an_agent_that_ends_without_answering_shows_the_model_nothing(self):
        outcome = agent.Outcome(invocations=[{"tool": "echo", "args": {"q": "a"}}],
                                unanswered="fake ended without answering the tool turn (exit 1): boom")
        body, log = self.reply(outcome)
        self.assertEqual(body["results"], [])
        self.assertEqual(len(body["invocations"]), 1)
        self.assertIn("harness raised: agent.AgentEnded: fake ended without answering", log)

    def test_an_agent_that_never_asked_is_an_error_and_a_skip_is_a_skip(self):
        def never(a, case, unit, cut_off=False):
            raise agent.NeverAsked("fake never asked the fake provider for the conversation turn")

        def skip(a, case, unit, cut_off=False):
            raise agent.Skip("no wire carries it")

        with mock.patch.object(agent, "converse", never):
            body = agent.adapter(FakeAgent()).run_case(CASE, io.StringIO())
        self.assertIn("NeverAsked: fake never asked", body["error"])
        with mock.patch.object(agent, "converse", skip):
            self.assertEqual(agent.adapter(FakeAgent()).run_case(CASE, io.StringIO()), {"skip": "no wire carries it"})


class OfferRetries(unittest.TestCase):
    """An agent whose request left the case's tools out is started again (nothing ran), then skipped."""

    def attempts(self, failures: int) -> tuple[list[int], object]:
        seen: list[int] = []

        def run_in(a, case, unit, work, cut_off):
            seen.append(1)
            if len(seen) <= failures:
                raise agent.NotOffered("the agent did not offer the model 'echo'")
            return agent.Outcome()

        with mock.patch.object(agent, "_run_in", run_in), mock.patch.dict(os.environ, {"WIRE_OFFER_ATTEMPTS": "3"}), \
                mock.patch("sys.stderr", io.StringIO()):
            try:
                return seen, agent.converse(FakeAgent(), CASE, "chars")
            except agent.Skip as skip:
                return seen, skip

    def test_a_late_offer_is_retried_until_the_tools_are_there(self):
        seen, outcome = self.attempts(2)
        self.assertEqual((len(seen), type(outcome)), (3, agent.Outcome))

    def test_tools_never_offered_skip_after_the_last_attempt(self):
        seen, outcome = self.attempts(5)
        self.assertEqual(len(seen), 3)
        self.assertIsInstance(outcome, agent.NotOffered)


class Strays(unittest.TestCase):
    """A daemon an agent detached (its own session, no longer in the agent's process tree) is
    ended with its case: found by the case's work directory in its environment."""

    def test_a_detached_process_carrying_the_case_home_is_ended_and_others_are_not(self):
        work = tempfile.mkdtemp(prefix="wire-test-")
        other = tempfile.mkdtemp(prefix="wire-test-")
        try:
            ours = subprocess.Popen(["sleep", "60"], start_new_session=True,
                                    env={**os.environ, "HOME": os.path.join(work, "home")})
            theirs = subprocess.Popen(["sleep", "60"], start_new_session=True,
                                      env={**os.environ, "HOME": os.path.join(other, "home")})
            agent._stop_strays(work)
            self.assertEqual(ours.wait(5), -signal.SIGKILL)
            self.assertIsNone(theirs.poll())
        finally:
            for process in (ours, theirs):
                if process.poll() is None:
                    process.kill()
                    process.wait()
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(other, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
