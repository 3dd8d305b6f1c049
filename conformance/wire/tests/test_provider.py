"""The fake provider over real HTTP on loopback: one conversation in each dialect, streamed and not."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import agent_side  # noqa: E402
import dialects  # noqa: E402
import provider  # noqa: E402

PATHS = {dialects.ANTHROPIC: "/v1/messages?beta=true", dialects.RESPONSES: "/v1/responses",
         dialects.CHAT: "/v1/chat/completions", dialects.GEMINI: "/v1beta/models/fake:generateContent"}
STREAM_PATHS = {**PATHS, dialects.GEMINI: "/v1beta/models/fake:streamGenerateContent?alt=sse"}
CALLS = [{"id": "toolu_01", "name": "echo", "input": {"q": "a"}}, {"id": "toolu_02", "name": "echo", "input": {"q": "b"}}]


def first_request(dialect: str, stream: bool, with_tools: bool = True) -> dict:
    body = agent_side.follow_up(dialect, [], [])
    body["stream"] = stream
    if not with_tools:
        body.pop("tools")
    if dialect == dialects.RESPONSES and with_tools:
        body["tools"] = [{"type": "function", "name": "echo", "parameters": {}}]
    elif dialect == dialects.CHAT and with_tools:
        body["tools"] = [{"type": "function", "function": {"name": "echo", "parameters": {}}}]
    elif dialect == dialects.GEMINI and with_tools:
        body["tools"] = [{"functionDeclarations": [{"name": "echo"}]}]
    elif with_tools:
        body["tools"] = [{"name": "echo", "input_schema": {}}]
    return body


def post(port: int, path: str, body: dict, headers: dict | None = None, raw: bytes | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    payload = raw if raw is not None else json.dumps(body).encode()
    connection.request("POST", path, body=payload, headers={"Content-Type": "application/json", **(headers or {})})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response.getheader("Content-Type"), data


class Conversations(unittest.TestCase):
    def test_each_dialect_emits_the_calls_captures_the_results_and_ends(self):
        results = [{"tool_use_id": "toolu_02", "is_error": True, "content": "no"},
                   {"tool_use_id": "toolu_01", "is_error": False, "content": "yes"}]
        for dialect in dialects.ALL:
            for stream in (True, False):
                with self.subTest(dialect=dialect, stream=stream):
                    conversation = provider.Conversation(CALLS, ["echo"])
                    with provider.Provider(conversation) as fake:
                        path = (STREAM_PATHS if stream else PATHS)[dialect]
                        status, kind, body = post(fake.port, path, first_request(dialect, stream))
                        self.assertEqual(status, 200)
                        self.assertEqual(kind, "text/event-stream" if stream else "application/json")
                        decoded = agent_side.decode(dialect, body, stream)
                        self.assertEqual([c["id"] for c in decoded["calls"]], ["toolu_01", "toolu_02"])
                        self.assertFalse(conversation.finished.is_set())
                        # a side request (no tools) is answered with text and changes nothing
                        _, _, side = post(fake.port, path, first_request(dialect, stream, with_tools=False))
                        self.assertEqual(agent_side.decode(dialect, side, stream)["text"], dialects.FINAL_TEXT)
                        self.assertEqual(conversation.state, "wait")
                        follow = agent_side.follow_up(dialect, CALLS, results)
                        _, _, last = post(fake.port, path, follow)
                        self.assertEqual(agent_side.decode(dialect, last, dialects.wants_stream(dialect, path, follow))["text"],
                                         dialects.FINAL_TEXT)
                        self.assertTrue(fake.wait(1))
                    parsed = conversation.results()
                    self.assertEqual([(p["tool_use_id"], p["content"]) for p in parsed], [("toolu_02", "no"), ("toolu_01", "yes")])
                    self.assertEqual(conversation.dialect, dialect)
                    self.assertEqual(conversation.stream, stream)

    def test_a_cut_off_turn_is_served_once_then_the_conversation_ends(self):
        conversation = provider.Conversation(CALLS, ["echo"], cut_off=True)
        with provider.Provider(conversation) as fake:
            _, _, body = post(fake.port, PATHS[dialects.CHAT], first_request(dialects.CHAT, True))
            decoded = agent_side.decode(dialects.CHAT, body, True)
            self.assertEqual(decoded["stop"], "length")
            with self.assertRaises(ValueError):
                json.loads(decoded["calls"][-1]["arguments"])
            _, _, again = post(fake.port, PATHS[dialects.CHAT], first_request(dialects.CHAT, True))
            self.assertEqual(agent_side.decode(dialects.CHAT, again, True)["text"], dialects.FINAL_TEXT)
        self.assertEqual(conversation.results(), [])

    def test_a_tool_the_agent_did_not_offer_ends_the_conversation_with_the_reason(self):
        conversation = provider.Conversation(CALLS, ["echo", "missing_tool"])
        with provider.Provider(conversation) as fake:
            _, _, body = post(fake.port, PATHS[dialects.ANTHROPIC], first_request(dialects.ANTHROPIC, False))
        self.assertEqual(agent_side.decode(dialects.ANTHROPIC, body, False)["calls"], [])
        self.assertIn("'missing_tool'", conversation.problem)
        self.assertIn("echo", conversation.problem)

    def test_a_request_without_tools_is_never_the_conversation(self):
        conversation = provider.Conversation([{"id": "toolu_01", "name": "nowhere", "input": {}}], [])
        with provider.Provider(conversation) as fake:
            request = first_request(dialects.ANTHROPIC, False, with_tools=False)
            request["messages"][0]["content"] = "Generate a title for: Call the tools."
            post(fake.port, PATHS[dialects.ANTHROPIC], request)
            self.assertEqual(conversation.state, "emit")
            _, _, body = post(fake.port, PATHS[dialects.ANTHROPIC], first_request(dialects.ANTHROPIC, False))
        self.assertEqual(agent_side.decode(dialects.ANTHROPIC, body, False)["calls"][0]["name"], "nowhere")

    def test_unexpressible_calls_end_the_conversation_with_the_reason(self):
        conversation = provider.Conversation([{"id": "a", "name": "echo", "arguments_text": "{"}], ["echo"])
        with provider.Provider(conversation) as fake:
            post(fake.port, PATHS[dialects.GEMINI], first_request(dialects.GEMINI, False))
        self.assertIn("JSON object", conversation.problem)


class Http(unittest.TestCase):
    def test_gzip_and_chunked_bodies_are_read(self):
        conversation = provider.Conversation(CALLS, ["echo"])
        with provider.Provider(conversation) as fake:
            raw = gzip.compress(json.dumps(first_request(dialects.RESPONSES, True)).encode())
            status, _, body = post(fake.port, PATHS[dialects.RESPONSES], {}, {"Content-Encoding": "gzip"}, raw)
            self.assertEqual(status, 200)
            self.assertEqual(len(agent_side.decode(dialects.RESPONSES, body, True)["calls"]), 2)
            connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
            payload = json.dumps(agent_side.follow_up(dialects.RESPONSES, [], [{"tool_use_id": "toolu_01", "is_error": False, "content": "x"}]))
            connection.request("POST", PATHS[dialects.RESPONSES], body=iter([payload[:10].encode(), payload[10:].encode()]),
                               encode_chunked=True, headers={"Transfer-Encoding": "chunked"})
            self.assertEqual(connection.getresponse().status, 200)
            connection.close()
        self.assertEqual([r["content"] for r in conversation.results()], ["x"])

    def test_other_endpoints(self):
        conversation = provider.Conversation(CALLS, ["echo"])
        with provider.Provider(conversation) as fake:
            self.assertTrue(fake.base_url.startswith("http://127.0.0.1:"))
            connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
            connection.request("GET", "/v1/models")
            listing = json.loads(connection.getresponse().read())
            self.assertEqual(listing["data"][0]["id"], "fake-model")
            connection.request("GET", "/v1/unknown")
            response = connection.getresponse()
            response.read()
            self.assertEqual(response.status, 404)
            connection.close()
            status, _, _ = post(fake.port, PATHS[dialects.CHAT], {}, raw=b"not json")
            self.assertEqual(status, 400)
        self.assertEqual(conversation.state, "emit")
        self.assertEqual(len(conversation.log), 2)  # the two model-less requests that got past parsing

    def test_wait_gives_up_at_its_timeout_or_when_the_agent_is_gone(self):
        conversation = provider.Conversation(CALLS, ["echo"])
        with provider.Provider(conversation) as fake:
            self.assertFalse(fake.wait(0.2))
            self.assertFalse(fake.wait(30, alive=lambda: False))


if __name__ == "__main__":
    unittest.main()
