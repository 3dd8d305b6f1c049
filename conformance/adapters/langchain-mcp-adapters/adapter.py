"""Adapter: langchain-mcp-adapters — an MCP server's tools as a LangChain agent uses them.

What is tested: the host side of MCP in LangChain. The case's tools are served by a transparent
MCP server (below) over the MCP SDK's in-memory transport; `load_mcp_tools(session)` turns them
into LangChain tools (`langchain_mcp_adapters/tools.py`, defaults: `handle_tool_errors=True`);
they are given to `langchain.agents.create_agent` — exactly the package README's quickstart —
whose model is a scripted chat model (langchain-core's `GenericFakeChatModel`, no network). Its
first answer is one `AIMessage` holding the case's calls (one turn); the agent's `ToolNode` runs
them through the MCP tools; its second answer is plain text, which ends the run. The adapter
reports the `ToolMessage`s the agent appended — what the model is shown on its next turn:
text blocks joined, `status == "error"`, `tool_call_id`.

The server is a transparent stand-in for "some third-party MCP server", as in
conformance/wire/README.md: the MCP SDK's low-level `Server` with `call_tool(validate_input=False)`,
`tools/list` giving each tool's `inputSchema` exactly as the case wrote it, and `tools/call`
running the scripted behaviour on whatever arguments arrive. It validates nothing and caps
nothing, so the column judges what LangChain does with a server's tools: invalid arguments that
reach a handler were sent by LangChain, and an uncut 2 MB result was passed on by it. A return is
one text block (JSON outputs as their JSON text); `domain` and `transport` raises are `isError:
true` results with the message (MCP's tool-execution-error form: MCP cannot tell them apart).
Internal errors and non-finite floats SKIP: over MCP the server would decide what the host sees.

Schema translation: none. langchain-mcp-adapters passes the server's `inputSchema` dict through as
the tool's `args_schema`, which langchain-core does not validate; the schema reaches the model
verbatim, so every keyword of the protocol's vocabulary is declared (as the wire adapters do).

Calls: structured calls become `AIMessage(tool_calls=[...])`; calls with arguments as text become
the provider-style `additional_kwargs["tool_calls"]` that langchain-core parses itself
(unparseable ones land in `invalid_tool_calls`, as with a real chat model). langchain-core's
message model refuses some malformed calls outright (a name or id that is not a string, arguments
that are not an object): then the turn cannot be built and the model gets no result.

No cap, no codes, no deadline (langchain-mcp-adapters sets no timeout on `call_tool`), no history.
The handlers are not told their call id (MCP has none), so invocations carry none.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import (
    Adapter, Call, Capabilities, Errors, Implementation, ReturnInstead, Skip, Tool, Turn,
)
from harness_conformance_adapter.vocabulary import KEYWORDS
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_mcp_adapters.tools import load_mcp_tools
from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.memory import create_connected_server_and_client_session

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


class ScriptedChatModel(GenericFakeChatModel):
    """langchain-core's fake chat model, made usable by `create_agent` (which binds tools)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


def error_result(message: str) -> ReturnInstead:
    """A raise, as an MCP server answers it: an `isError` result with the message."""
    return ReturnInstead(types.CallToolResult(content=[types.TextContent(type="text", text=message)], isError=True))


def present(value: Any, kind: str) -> Any:
    """A handler's value as the transparent server's `tools/call` answer."""
    if isinstance(value, types.CallToolResult):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, allow_nan=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=False)


def behaviours(behavior: Any) -> Iterator[Any]:
    """Every step of a behaviour chain (for the cases the server cannot serve)."""
    while isinstance(behavior, dict):
        yield behavior
        behavior = behavior.get("then")


def server_for(turn: Turn) -> Server[Any]:
    for tool in turn.case.tools:
        for step in behaviours(tool.behavior):
            if step.get("raise", {}).get("kind") == "internal":
                raise Skip("an internal error over MCP is text the server chose; the host cannot be judged on it")
            output = step.get("return", {})
            if "non_finite" in output or "non_finite_in" in output:
                raise Skip("a non-finite float over MCP is text the server chose; the host never sees a float")
    server: Server[Any] = Server("cases")
    handlers = {tool.name: turn.async_handler(tool) for tool in turn.case.tools}
    listed = [types.Tool(name=t.name, description=t.description, inputSchema=dict(t.input_schema))
              for t in turn.case.tools]

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return listed

    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if name not in handlers:
            return error_result(f"Unknown tool: {name}").value
        result: types.CallToolResult = await handlers[name](arguments)
        return result

    return server


def ai_message(calls: list[Call]) -> AIMessage:
    """The assistant message holding the turn's calls, as a LangChain chat model produces it.

    The same as langgraph-default's `ai_message` (this adapter has its own venv, so it cannot
    import that one); it belongs in a LangChain helper of the kit (reported to the kit's owners)."""
    structured, provider = [], []
    for call in calls:
        if call.form == "raw":
            raise Skip("LangChain receives calls already split into name, id and arguments; a raw block is not expressible")
        if call.form == "arguments_text":
            provider.append({"id": call.get("id"), "type": "function",
                             "function": {"name": call.get("name"), "arguments": call.arguments_text}})
        else:
            structured.append({"name": call.get("name"), "args": call.get("input"), "id": call.get("id"),
                               "type": "tool_call"})
    if provider and structured:
        raise Skip("one assistant message cannot mix parsed tool calls with provider-format tool calls")
    if provider:
        return AIMessage(content="", additional_kwargs={"tool_calls": provider})
    return AIMessage(content="", tool_calls=structured)


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    blocks = [b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content]
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def build(turn: Turn) -> Server[Any]:
    return server_for(turn)


async def run_turn(server: Server[Any], turn: Turn) -> None:
    with turn.harness_may_raise(turn.case.calls) as building:  # langchain-core may refuse the message itself
        message = ai_message(list(turn.case.calls))
    if building.raised:
        return
    async with create_connected_server_and_client_session(server) as session:
        tools = await load_mcp_tools(session)
        model = ScriptedChatModel(messages=iter([message, AIMessage(content="done")]))
        agent = create_agent(model, tools)
        with turn.harness_may_raise(turn.case.calls) as running:
            state = await agent.ainvoke({"messages": [{"role": "user", "content": "run the tools"}]})
    if running.raised:
        return
    for m in state["messages"]:
        if isinstance(m, ToolMessage):
            turn.report(m.tool_call_id, is_error=m.status == "error", content=content_text(m.content),
                        native=json.loads(m.model_dump_json()))


adapter = Adapter(
    Implementation("langchain-mcp-adapters (load_mcp_tools + create_agent)", "python",
                   f"langchain-mcp-adapters {version('langchain-mcp-adapters')}, langchain {version('langchain')}, "
                   f"langchain-core {version('langchain-core')}, langgraph {version('langgraph')}, mcp {version('mcp')}",
                   "https://github.com/langchain-ai/langchain-mcp-adapters"),
    Capabilities(cap=None, retryability=False, keywords=list(KEYWORDS or ()),
                 call_forms=["structured", "arguments_text"], parallel=True, history=False),
    Errors(domain=error_result, transport=error_result, internal=lambda m: RuntimeError(m)),
    build,
    run_turn,
    present=present,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
