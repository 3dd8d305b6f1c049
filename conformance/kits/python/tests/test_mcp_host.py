"""The one MCP host: results, JSON-RPC errors shown as error results, crashes shown as nothing."""

import pytest

from harness_conformance_adapter import MISSING, Adapter, Capabilities, Errors, Implementation, Turn
from harness_conformance_adapter.mcp_host import serve_turn, text_of

from test_adapter import run_one, tool


class RpcError(Exception):
    """Stands in for an SDK's JSON-RPC error type."""


class FakeServer:
    """A server answering `tools/call` the way an MCP SDK does: results, errors, or a crash."""

    def __init__(self, turn: Turn):
        self.handlers = {t.name: turn.async_handler(t) for t in turn.case.tools}
        self.sent = []

    async def call_tool(self, name, arguments):
        self.sent.append((name, arguments))
        if name == "crash":
            raise OSError("the client fell over")
        if name not in self.handlers:
            raise RpcError(f"MCP error -32602: Tool {name} not found")
        out = await self.handlers[name]({} if arguments is MISSING else arguments)
        return {"content": [{"type": "text", "text": out}, {"type": "image", "data": "x"},
                            {"type": "text", "text": "!"}]}


SENT = []


async def run_turn(server: FakeServer, turn: Turn) -> None:
    await serve_turn(turn, server.call_tool, errors=(RpcError,))
    SENT[:] = server.sent


ADAPTER = Adapter(Implementation("fake-mcp", "python", "0"), Capabilities(keywords=["type"], call_ids=False),
                  Errors(domain=RpcError, transport=ConnectionError, internal=RuntimeError), FakeServer, run_turn)


def test_every_call_gets_its_result_in_order_with_the_models_id():
    reply = run_one({"tools": [tool()], "calls": [{"id": "c1", "name": "t", "input": {"a": 1}},
                                                  {"id": "c2", "name": "nope", "input": {}},
                                                  {"name": "t"}]}, ADAPTER)
    assert [(r["tool_use_id"], r["is_error"], r["content"]) for r in reply["results"]] == [
        ("c1", False, "ok!"), ("c2", True, "MCP error -32602: Tool nope not found"), (None, False, "ok!")]
    assert SENT == [("t", {"a": 1}), ("nope", {}), ("t", MISSING)], "absent input stays absent"
    assert reply["invocations"][0] == {"tool": "t", "args": {"a": 1}, "tool_use_id": "c1"}


def test_a_crash_of_the_client_shows_nothing_for_that_call(capsys):
    reply = run_one({"tools": [tool()], "calls": [{"id": "c1", "name": "crash", "input": {}},
                                                  {"id": "c2", "name": "t", "input": {}}]}, ADAPTER)
    assert [r["tool_use_id"] for r in reply["results"]] == ["c2"]
    assert "harness raised: OSError: the client fell over [for call 'c1']" in capsys.readouterr().err


def test_calls_mcp_cannot_carry_skip():
    reply = run_one({"tools": [tool()], "calls": [{"id": "c1", "name": "t", "arguments_text": "{}"}]}, ADAPTER)
    assert "raw and text forms" in reply["skip"]


@pytest.mark.parametrize("result, text", [
    ({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "ab"),
    ({"content": "not a list"}, ""),
    ({}, ""),
    ({"content": [{"type": "text"}, {"type": "text", "text": 3}]}, ""),
])
def test_text_of_joins_text_blocks_only(result, text):
    assert text_of(result) == text


def test_the_hello_says_the_server_never_sees_ids():
    assert ADAPTER.hello()["capabilities"]["call_ids"] is False
