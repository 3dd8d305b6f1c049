"""Adapter: the MCP Python SDK (`mcp` 2.x) behind the conformance protocol.

What is tested: an `MCPServer` (FastMCP's 2.x name) whose tools are ordinary Python functions
registered with `server.add_tool(fn)` — the way the SDK's README teaches users to write tools —
called by the SDK's own `Client` connected in-process (the in-memory transport). The adapter
plays the host: for each `tool_use` block of the turn, in order, it calls
`client.call_tool(name, input)` and turns the `CallToolResult` into the `tool_result` the model
would see (text blocks concatenated, `isError`). MCP has no tool-use id of its own: the host copies
the model's id onto the result, so `tool_use_id` is the call's id verbatim.

Schema translation: the SDK builds a tool's input schema and validator from the function's
signature (pydantic). For each case the adapter writes that signature with
python-common/schema2py.py; what a signature cannot say (additionalProperties: false on the
arguments object, `uniqueItems`, `oneOf`, ...) makes the case SKIP with the reason.

Handler errors, in the SDK's idiom: domain → `ToolError` (the SDK's "show this to the client"
exception), transport → `ConnectionError` (what a network client raises), internal → `RuntimeError`.

When `client.call_tool` raises instead of returning a result (e.g. arguments that are not an
object are refused by the client's own request model), the model would see nothing for that call:
no result is reported for it, and the exception is written to stderr.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import sys
import warnings
from importlib.metadata import version

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))

import hcproto  # noqa: E402
import schema2py  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

RAISERS = hcproto.Raisers(domain=ToolError, transport=ConnectionError, internal=RuntimeError)

HELLO = {
    "implementation": {
        "name": "mcp-python (MCPServer function tools)",
        "language": "python",
        "version": version("mcp"),
        "homepage": "https://github.com/modelcontextprotocol/python-sdk",
    },
    "capabilities": {
        "cap": None,
        "retryability": False,
        "deadline": {"configurable": True},
        "keywords": schema2py.KEYWORDS,
        "call_forms": ["structured"],
        "parallel": False,
        "history": False,
    },
}


class Host:
    """One case: the server with the case's tools, and the host's record of what ran."""

    def __init__(self, case: dict):
        self.case = case
        self.unit = hcproto.cap_unit(case)
        self.invocations = hcproto.Invocations()
        self.current_id = None  # the host calls one tool at a time, so it knows which call runs
        self.server = MCPServer("conformance")
        for tool in case["tools"]:
            self.server.add_tool(self.function_for(tool), name=tool["name"], description=tool["description"])

    def function_for(self, tool: dict):
        try:
            params = schema2py.parameters(tool["input_schema"], tool["name"])
        except schema2py.Untranslatable as exc:
            raise hcproto.Skip(f"tool {tool['name']!r}: {exc}") from None
        host, name, behavior = self, tool["name"], tool["behavior"]

        async def handler(**kwargs):
            args = {k: v for k, v in kwargs.items() if v is not hcproto.UNSET}
            host.invocations.record(name, host.current_id, args)
            return await hcproto.perform_async(behavior, args, host.unit, RAISERS)

        handler.__signature__ = inspect.Signature(
            [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params]
        )
        handler.__annotations__ = {p: a for p, a, _ in params}
        handler.__name__ = schema2py._safe(name)
        return handler

    async def run(self) -> dict:
        deadline = (self.case.get("config") or {}).get("deadline_ms")
        results = []
        for call in self.case["calls"]:
            if not isinstance(call, dict) or "raw" in call or "arguments_text" in call:
                raise hcproto.Skip("MCP tool calls carry arguments as a JSON object; raw and text forms are not expressible")
        async with Client(self.server) as client:
            for call in self.case["calls"]:
                call_id = call.get("id")
                self.current_id = call_id
                try:
                    result = await client.call_tool(
                        call.get("name"), call.get("input"),
                        read_timeout_seconds=None if deadline is None else deadline / 1000,
                    )
                except Exception as exc:
                    hcproto.log_harness_raise(call_id, exc)
                    continue
                native = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                results.append({
                    "tool_use_id": call_id,
                    "is_error": bool(result.is_error),
                    "content": hcproto.text_of_blocks(native.get("content", [])),
                    "native": native,
                })
        return {"results": results, "invocations": self.invocations.entries}


def run_case(case: dict) -> dict:
    return asyncio.run(Host(case).run())


if __name__ == "__main__":
    hcproto.serve(HELLO, run_case)
