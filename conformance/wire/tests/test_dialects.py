"""Each dialect's rendering and parsing, read back by the independent agent side (agent_side.py)."""

from __future__ import annotations

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import agent_side  # noqa: E402
import dialects  # noqa: E402

STRUCTURED = [
    {"id": "toolu_01", "name": "get_weather", "input": {"city": "Oslo", "n": "3", "note": "é😀\u2028"}},
    {"id": "toolu_02", "name": "get_weather", "input": {}},
    {"id": "toolu_03", "name": "set", "input": {"deep": {"list": [1, 2.5, None, True]}}},
]
TEXT = [{"id": "call_01", "name": "set_count", "arguments_text": "{\"count\": \"3\""}]
MALFORMED = [
    {"name": "no_id", "input": {"a": 1}},  # no id at all
    {"id": 7, "name": "numeric_id", "input": {"a": 1}},
    {"id": "toolu_09", "input": {"a": 1}},  # no name
    {"id": "toolu_10", "name": "no_input"},  # no input at all
    {"id": "toolu_11", "name": "null_input", "input": None},
    {"id": "toolu_12", "name": "array_input", "input": ["Oslo"]},
]
MODES = [(d, s) for d in dialects.ALL for s in (True, False)]
TEXT_SLOT = {(dialects.ANTHROPIC, True), (dialects.RESPONSES, True), (dialects.RESPONSES, False),
             (dialects.CHAT, True), (dialects.CHAT, False)}
STOPS = {dialects.ANTHROPIC: ("tool_use", "max_tokens", "end_turn"),
         dialects.RESPONSES: ("completed", "max_output_tokens", "completed"),
         dialects.CHAT: ("tool_calls", "length", "stop"),
         dialects.GEMINI: ("STOP", "MAX_TOKENS", "STOP")}


def turn(dialect, calls, stream, cut_off=False):
    events = dialects.render_turn(dialect, calls, stream, "m", cut_off)
    return agent_side.decode(dialect, dialects.encode(events, stream), stream)


def expected_text(call):
    if "arguments_text" in call:
        return call["arguments_text"]
    return "" if "input" not in call else json.dumps(call["input"], ensure_ascii=False, separators=(",", ":"))


class Rendering(unittest.TestCase):
    def check_calls(self, dialect, stream, calls, decoded):
        self.assertEqual(len(decoded["calls"]), len(calls))
        for sent, got in zip(calls, decoded["calls"]):
            for key in ("id", "name"):
                self.assertEqual(got.get(key, "<absent>"), sent.get(key, "<absent>"), (dialect, stream, key))
            if (dialect, stream) in TEXT_SLOT:
                self.assertEqual(got["arguments"], expected_text(sent))
            else:
                self.assertEqual(got.get("input", "<absent>"), sent.get("input", "<absent>"))

    def test_calls_round_trip_in_every_mode(self):
        for dialect, stream in MODES:
            for calls in (STRUCTURED, MALFORMED):
                with self.subTest(dialect=dialect, stream=stream, calls=calls[0]["name"]):
                    decoded = turn(dialect, calls, stream)
                    self.check_calls(dialect, stream, calls, decoded)
                    self.assertEqual(decoded["stop"], STOPS[dialect][0])

    def test_arguments_text_is_carried_verbatim_where_the_slot_is_text(self):
        for dialect, stream in MODES:
            with self.subTest(dialect=dialect, stream=stream):
                if (dialect, stream) in TEXT_SLOT:
                    self.check_calls(dialect, stream, TEXT, turn(dialect, TEXT, stream))
                else:
                    with self.assertRaises(dialects.Unexpressible):
                        dialects.render_turn(dialect, TEXT, stream, "m")

    def test_raw_blocks_are_never_expressible(self):
        for dialect, stream in MODES:
            with self.assertRaises(dialects.Unexpressible):
                dialects.check(dialect, [{"raw": "{\"type\": \"tool_use\""}], stream)

    def test_a_cut_off_turn_stops_for_tokens_inside_the_last_call(self):
        for dialect, stream in MODES:
            if (dialect, stream) not in TEXT_SLOT:
                continue  # object slots cannot hold half a JSON text
            with self.subTest(dialect=dialect, stream=stream):
                decoded = turn(dialect, STRUCTURED, stream, cut_off=True)
                self.assertEqual(decoded["stop"], STOPS[dialect][1])
                last = decoded["calls"][-1]["arguments"]
                full = expected_text(STRUCTURED[-1])
                self.assertTrue(full.startswith(last) and len(last) < len(full), (last, full))
                with self.assertRaises(ValueError):
                    json.loads(last)
                self.check_calls(dialect, stream, STRUCTURED[:-1], {"calls": decoded["calls"][:-1]})

    def test_the_final_turn_is_text_only(self):
        for dialect, stream in MODES:
            with self.subTest(dialect=dialect, stream=stream):
                decoded = turn(dialect, [], stream)
                self.assertEqual(decoded["calls"], [])
                self.assertEqual(decoded["text"], dialects.FINAL_TEXT)
                self.assertEqual(decoded["stop"], STOPS[dialect][2])

    def test_streamed_arguments_arrive_in_several_deltas(self):
        body = dialects.encode(dialects.render_turn(dialects.ANTHROPIC, STRUCTURED[:1], True, "m"), True)
        deltas = [d for n, d in agent_side.sse_events(body) if n == "content_block_delta"]
        self.assertGreater(len(deltas), 1)
        self.assertTrue(body.isascii())  # everything escaped: lone surrogates cannot break the stream

    def test_namespaced_calls_keep_their_namespace(self):
        call = [{"id": "c1", "namespace": "mcp__cases", "name": "echo", "input": {"q": 1}}]
        for stream in (True, False):
            decoded = turn(dialects.RESPONSES, call, stream)
            self.assertEqual(decoded["calls"][0]["namespace"], "mcp__cases")
        offered = {"tools": [{"type": "namespace", "name": "mcp__cases", "tools": [{"type": "function", "name": "echo"}]},
                             {"type": "function", "name": "shell"}]}
        self.assertEqual(dialects.tool_names(dialects.RESPONSES, offered), ["mcp__cases.echo", "shell"])


RESULTS = [
    {"tool_use_id": "toolu_02", "is_error": True, "content": "set_count: /n: expected integer"},
    {"tool_use_id": "toolu_01", "is_error": False, "content": "line 1\nline 2 é😀 \ud800 end"},
    {"tool_use_id": "toolu_03", "is_error": False, "content": ""},
]


class Parsing(unittest.TestCase):
    def test_results_come_back_in_request_order_with_ids_text_and_flags(self):
        for dialect in dialects.ALL:
            with self.subTest(dialect=dialect):
                calls = [{"id": c["id"], "name": c["name"]} for c in STRUCTURED]
                request = json.loads(json.dumps(agent_side.follow_up(dialect, calls, RESULTS)))
                parsed = dialects.results(dialect, request)
                self.assertEqual([p["tool_use_id"] for p in parsed], [r["tool_use_id"] for r in RESULTS])
                self.assertEqual([p["content"] for p in parsed], [r["content"] for r in RESULTS])
                flags = [p["is_error"] for p in parsed]
                if dialect in (dialects.ANTHROPIC, dialects.GEMINI):
                    self.assertEqual(flags, [r["is_error"] for r in RESULTS])
                else:
                    self.assertEqual(flags, [None] * len(RESULTS))  # the wire has no flag

    def test_only_the_last_turn_results_count(self):
        request = agent_side.follow_up(dialects.ANTHROPIC, [], RESULTS[:1])
        request["messages"] += [{"role": "assistant", "content": [{"type": "text", "text": "hm"}]},
                                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "late"}]}]
        self.assertEqual([r["content"] for r in dialects.results(dialects.ANTHROPIC, request)], ["late"])

    def test_anthropic_string_content_and_absent_flag(self):
        request = {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "plain"}]}]}
        self.assertEqual(dialects.results(dialects.ANTHROPIC, request)[0]["is_error"], False)
        self.assertEqual(dialects.results(dialects.ANTHROPIC, request)[0]["content"], "plain")

    def test_gemini_responses_of_other_shapes_are_shown_as_json(self):
        request = {"contents": [{"parts": [{"functionResponse": {"name": "t", "response": {"output": "a", "extra": 1}}}]}]}
        parsed = dialects.results(dialects.GEMINI, request)[0]
        self.assertEqual((parsed["tool_use_id"], parsed["is_error"], parsed["content"]), (None, False, '{"output":"a","extra":1}'))

    def test_requests_are_routed_by_path(self):
        routes = {"/v1/messages?beta=true": dialects.ANTHROPIC, "/v1/responses": dialects.RESPONSES,
                  "/api/v1/chat/completions": dialects.CHAT,
                  "/v1beta/models/gemini-x:streamGenerateContent?alt=sse": dialects.GEMINI,
                  "/v1beta/models/gemini-x:generateContent": dialects.GEMINI, "/v1/models": None}
        for path, dialect in routes.items():
            self.assertEqual(dialects.dialect_of("POST", path), dialect, path)
        self.assertTrue(dialects.wants_stream(dialects.GEMINI, "/v1beta/models/g:streamGenerateContent?alt=sse", {}))
        self.assertFalse(dialects.wants_stream(dialects.CHAT, "/v1/chat/completions", {"stream": False}))


if __name__ == "__main__":
    unittest.main()
