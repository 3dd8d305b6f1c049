"""Per-call dispatch overhead of the Python harnesses behind the adapters, through their own APIs.

Run with the venv conformance/adapters/install.sh made for the harness (see run.sh):

    <adapter>/.venv/bin/python benches/peers/python_peers.py mcp-python|pydantic-ai|langgraph [calls]

Each harness gets one tool, `list(path: str, limit: int >= 1, recursive: bool)`, whose handler
returns "ok", built once outside the timing. A valid call ({"path": "src", "limit": 10,
"recursive": true}) and an invalid one ({"path": 3, "limit": "10", "recursive": true}) are
dispatched the way the harness's users dispatch a model's tool call:

* mcp-python: `Client(server).call_tool` on an open in-memory session (the SDK's own in-process
  transport; JSON-RPC encoding included, as for every MCP host);
* langgraph: a one-node graph holding the prebuilt `ToolNode` (as the adapter builds it; the
  node needs a graph's runtime), invoked with an `AIMessage` holding the call;
* pydantic-ai: a whole agent turn whose `FunctionModel` asks for the call and then stops (the
  library dispatches tool calls only inside a run); the same turn asking for nothing is
  reported beside it (`turn_without_call_ns`), so the tool call's share can be read off when
  the machine is quiet enough for the difference to mean something.

Prints one JSON line: {"name", "valid_ns", "invalid_ns", "valid_error", "invalid_error"}; the
medians are per call, over 9 timed runs of `calls` calls each. This is a benchmark: it asserts
only that the valid call succeeded.
"""
from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from typing import Annotated

from pydantic import Field

VALID = {"path": "src", "limit": 10, "recursive": True}
INVALID = {"path": 3, "limit": "10", "recursive": True}
RUNS = 9


def list_files(path: str, limit: Annotated[int, Field(ge=1)], recursive: bool) -> str:
    """List files."""
    return "ok"


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


async def timed_async(call, calls: int) -> float:
    await call()  # warm
    runs = []
    for _ in range(RUNS):
        start = time.perf_counter_ns()
        for _ in range(calls):
            await call()
        runs.append((time.perf_counter_ns() - start) / calls)
    return median(runs)


def timed(call, calls: int) -> float:
    call()
    runs = []
    for _ in range(RUNS):
        start = time.perf_counter_ns()
        for _ in range(calls):
            call()
        runs.append((time.perf_counter_ns() - start) / calls)
    return median(runs)


async def mcp_python(calls: int) -> dict:
    from importlib.metadata import version

    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")
    server.add_tool(list_files, name="list", description="List files.")
    async with Client(server) as client:
        ok = await client.call_tool("list", VALID)
        bad = await client.call_tool("list", INVALID)
        assert not ok.is_error, ok
        return {
            "name": f"MCP Python SDK mcp=={version('mcp')} (Client.call_tool, in-memory)",
            "valid_ns": await timed_async(lambda: client.call_tool("list", VALID), calls),
            "invalid_ns": await timed_async(lambda: client.call_tool("list", INVALID), calls),
            "valid_error": bool(ok.is_error),
            "invalid_error": bool(bad.is_error),
        }


def langgraph(calls: int) -> dict:
    from importlib.metadata import version

    from langchain_core.messages import AIMessage
    from langchain_core.tools import StructuredTool
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    tool = StructuredTool.from_function(list_files, name="list", description="List files.")
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([tool]))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    app = graph.compile()

    def call(args):
        message = AIMessage(content="", tool_calls=[{"id": "toolu_01", "name": "list", "args": args}])
        return app.invoke({"messages": [message]})["messages"][-1]

    ok, bad = call(VALID), call(INVALID)
    assert ok.status != "error", ok
    return {
        "name": f"LangGraph ToolNode langgraph=={version('langgraph')} (one-node graph invoke)",
        "valid_ns": timed(lambda: call(VALID), calls),
        "invalid_ns": timed(lambda: call(INVALID), calls),
        "valid_error": ok.status == "error",
        "invalid_error": bad.status == "error",
    }


async def pydantic_ai(calls: int) -> dict:
    from importlib.metadata import version

    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    def agent_for(args):
        def model(messages, info):
            if args is not None and len(messages) == 1:
                return ModelResponse(parts=[ToolCallPart(tool_name="list", args=args, tool_call_id="toolu_01")])
            return ModelResponse(parts=[TextPart("done")])

        return Agent(FunctionModel(model), tools=[Tool(list_files, name="list", description="List files.")])

    agents = {name: agent_for(args) for name, args in (("valid", VALID), ("invalid", INVALID), ("none", None))}

    async def turn(name):
        return await agents[name].run("go")

    def outcome(run):
        parts = [p for m in run.all_messages() for p in getattr(m, "parts", []) if p.part_kind in ("tool-return", "retry-prompt")]
        return parts[0] if parts else None

    def is_error(part):
        return not isinstance(part, ToolReturnPart) or getattr(part, "outcome", "success") != "success"

    ok, bad = outcome(await turn("valid")), outcome(await turn("invalid"))
    assert not is_error(ok), ok
    base = await timed_async(lambda: turn("none"), calls)
    return {
        "name": f"pydantic-ai-slim=={version('pydantic-ai-slim')} (whole agent turn, FunctionModel)",
        "valid_ns": await timed_async(lambda: turn("valid"), calls),
        "invalid_ns": await timed_async(lambda: turn("invalid"), calls),
        "valid_error": is_error(ok),
        "invalid_error": is_error(bad),
        "turn_without_call_ns": base,
    }


def main() -> None:
    logging.disable(logging.WARNING)  # the SDKs log every refused call; stdout stays one JSON line
    which = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    if which == "mcp-python":
        out = asyncio.run(mcp_python(calls))
    elif which == "langgraph":
        out = langgraph(calls)
    elif which == "pydantic-ai":
        out = asyncio.run(pydantic_ai(calls))
    else:
        raise SystemExit(f"unknown harness {which!r}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
