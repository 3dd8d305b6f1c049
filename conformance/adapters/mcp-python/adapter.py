"""Adapter: the MCP Python SDK (`mcp` 2.x) behind the conformance protocol.

What is tested: an `MCPServer` (FastMCP's 2.x name) whose tools are ordinary Python functions
registered with `server.add_tool(fn)` — the way the SDK's README teaches users to write tools —
called by the SDK's own `Client` connected in-process (the in-memory transport). The adapter
plays the host: for each `tool_use` block of the turn, in order, it calls
`client.call_tool(name, input)` and turns the `CallToolResult` into the `tool_result` the model
would see (text blocks concatenated, `isError`). MCP has no tool-use id of its own: the host copies
the model's id onto the result, so `tool_use_id` is the call's id verbatim.

Schema translation: the SDK builds a tool's input schema and validator from the function's
signature (pydantic). For each case the adapter writes that signature with the kit's
`pydantic_schema.parameters`; what a signature cannot say (additionalProperties: false on the
arguments object, `uniqueItems`, `oneOf`, ...) makes the case SKIP with the reason.

Handler errors, in the SDK's idiom: domain → `ToolError` (the SDK's "show this to the client"
exception), transport → `ConnectionError` (what a network client raises), internal → `RuntimeError`.

When `client.call_tool` raises instead of returning a result (e.g. arguments that are not an
object are refused by the client's own request model), the model would see nothing for that call:
no result is reported for it, and the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import logging
import warnings
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import Adapter, Capabilities, Deadline, Errors, Implementation, Skip, Tool, Turn
from harness_conformance_adapter.pydantic_schema import KEYWORDS, Untranslatable, parameters, present_arguments, \
    safe_name, skip_for
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def tool_function(tool: Tool, turn: Turn) -> Any:
    """The function a user would write for this tool: keyword parameters from the schema."""
    try:
        params = parameters(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params]
    )
    handler.__annotations__ = {p: a for p, a, _ in params}
    handler.__name__ = safe_name(tool.name)
    return handler


def build(turn: Turn) -> MCPServer:
    server = MCPServer("conformance")
    for tool in turn.case.tools:
        server.add_tool(tool_function(tool, turn), name=tool.name, description=tool.description)
    for call in turn.case.calls:
        if call.form != "structured":
            raise Skip("MCP tool calls carry arguments as a JSON object; raw and text forms are not expressible")
    return server


async def run_turn(server: MCPServer, turn: Turn) -> None:
    deadline = turn.case.config.deadline_ms
    async with Client(server) as client:
        for call in turn.case.calls:
            turn.current_call = call  # the host calls one tool at a time, so it knows which call runs
            with turn.harness_may_raise(call):
                result = await client.call_tool(
                    call.get("name"), call.get("input"),
                    read_timeout_seconds=None if deadline is None else deadline / 1000,
                )
                native = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                content = "".join(b.get("text", "") for b in native.get("content", [])
                                  if isinstance(b, dict) and b.get("type") == "text")
                turn.report(call.id_or_none, is_error=bool(result.is_error), content=content, native=native)


adapter = Adapter(
    Implementation("mcp-python (MCPServer function tools)", "python", version("mcp"),
                   "https://github.com/modelcontextprotocol/python-sdk"),
    Capabilities(cap=None, retryability=False, deadline=Deadline(configurable=True), keywords=KEYWORDS,
                 call_forms=["structured"], parallel=False, history=False),
    Errors(domain=ToolError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
