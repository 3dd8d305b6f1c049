"""Adapter: the MCP Python SDK (`mcp` 2.x) behind the conformance protocol.

What is tested: an `MCPServer` (FastMCP's 2.x name) whose tools are ordinary Python functions
registered with `server.add_tool(fn)` — the way the SDK's README teaches users to write tools —
called by the SDK's own `Client` connected in-process (the in-memory transport). The host is the
kit's one MCP host (`harness_conformance_adapter.mcp_host`, PROTOCOL.md section 3b): one
`client.call_tool(name, arguments)` per `tool_use` block, in order; a `CallToolResult` becomes the
tool_result (text blocks joined, `isError`); an `MCPError` (a JSON-RPC error answering the call, or
the client's own request timeout) and a request the client's request model refuses to build
(`CallToolRequestParams`: a name that is not a string, arguments that are not an object) are shown
as an error result carrying the SDK's message, as mainstream hosts do. MCP has no tool-use ids: the
host pairs results with calls, and the hello declares `call_ids=False`. The client takes
`arguments` as a dict or None, so an absent `input` and `"input": null` both reach the server as
no arguments (the SDK's own conflation; the host passes what the model sent).

Schema translation: the SDK builds a tool's input schema and validator from the function's
signature (pydantic). For each case the adapter writes that signature with the kit's
`pydantic_schema.keyword_function`; what a signature cannot say (additionalProperties: false on the
arguments object, `uniqueItems`, `oneOf`, ...) makes the case SKIP with the reason.

Handler errors, in the SDK's idiom: domain → `ToolError` (the SDK's "show this to the client"
exception), transport → `ConnectionError` (what a network client raises), internal → `RuntimeError`.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import warnings
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import MISSING, Adapter, Capabilities, Deadline, Errors, Implementation, Json, Turn
from harness_conformance_adapter.mcp_host import serve_turn
from harness_conformance_adapter.pydantic_schema import KEYWORDS, keyword_function
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def build(turn: Turn) -> MCPServer:
    server = MCPServer("conformance")
    for tool in turn.case.tools:
        server.add_tool(keyword_function(tool, turn), name=tool.name, description=tool.description)
    return server


class RefusedToSend(Exception):
    """The SDK's client would not build the `tools/call` request (its request model refused it)."""


async def run_turn(server: MCPServer, turn: Turn) -> None:
    deadline = turn.case.config.deadline_ms
    async with Client(server) as client:
        async def call_tool(name: Json, arguments: Json) -> Any:
            try:
                result = await client.call_tool(
                    name, None if arguments is MISSING else arguments,  # type: ignore[arg-type]
                    read_timeout_seconds=None if deadline is None else deadline / 1000,
                )
            except ValidationError as exc:
                if exc.title == "CallToolRequestParams":  # the request, not a result the client parsed
                    raise RefusedToSend(str(exc)) from exc
                raise
            return result.model_dump(mode="json", by_alias=True, exclude_none=True)

        await serve_turn(turn, call_tool, errors=(MCPError, RefusedToSend))


adapter = Adapter(
    Implementation("mcp-python (MCPServer function tools)", "python", version("mcp"),
                   "https://github.com/modelcontextprotocol/python-sdk"),
    Capabilities(cap=None, retryability=False, deadline=Deadline(configurable=True), keywords=KEYWORDS,
                 call_forms=["structured"], parallel=False, history=False,
                 call_ids=False),  # an MCP server never sees tool-use ids: the host pairs results with calls
    Errors(domain=ToolError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
