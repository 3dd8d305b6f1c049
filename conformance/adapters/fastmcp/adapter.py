"""Adapter: FastMCP (`fastmcp` 4.x), the server side, behind the conformance protocol.

Two configurations share this file (`run` scripts in fastmcp/ and fastmcp-default/):

- `fastmcp` (no flag), the production configuration FastMCP's docs describe:
  `FastMCP(name, mask_error_details=True)` ("mask internal error details for security reasons",
  docs/servers/tools.mdx, Error Handling) with `ResponseLimitingMiddleware()` added
  (docs/servers/middleware.mdx, Response Limiting; its default `max_size` is 1,000,000 bytes);
- `fastmcp-default` (`--default`): `FastMCP(name)` exactly as constructed, no middleware, no
  masking: what a server gets that follows the quickstart.

Input validation stays FastMCP's default (lax pydantic coercion) in both: its docs recommend it
("The default flexible validation mode is recommended for most use cases", tools.mdx, Validation
Modes).

What is tested: the case's tools as ordinary Python functions (`Tool.from_function(fn, name=...,
description=..., timeout=...)`, added with `server.add_tool`) — the form FastMCP's docs teach —
called by FastMCP's own `Client(server)` over its in-memory transport. The adapter is the host:
for each `tool_use` block of the turn, in order, it sends one `tools/call` with
`client.call_tool_mcp(name, arguments)` (the raw `CallToolResult`; `call_tool` would raise on an
error result instead of showing it) and turns the result into the `tool_result` the model would
see: text blocks concatenated, `isError`.

The host (one rule, what mainstream MCP hosts do): a JSON-RPC error answering `tools/call` (an
`MCPError`) is shown to the model as an error result whose text is the error's message, so the
column judges the server's answer, not the host's. A call that cannot be put on the wire at all
(a name that is not a string, arguments that are not an object: MCP's request model refuses them
in the client, and sends `null` arguments as absent) never reaches the server as the model made
it, so its case SKIPs; anything else the client raises means no result, and the kit writes the
exception to stderr.

MCP has no tool-use id: the host copies the model's id onto each result. Cases whose calls have
ids that are missing, not strings, empty or repeated test id correlation, which the server cannot
take part in, so they SKIP here (a capability for this is proposed in docs/harnesses.md).

Schema translation: FastMCP builds a tool's input schema and validator from the function's
signature (pydantic). The adapter writes that signature with the kit's `pydantic_schema.keyword_function`
(what a user writes by hand). A signature is a closed object in FastMCP (pydantic refuses an
unexpected keyword argument), so a top-level `additionalProperties: false` is expressed by the
signature itself (`signature_schema`); what a signature cannot say (`uniqueItems`, `oneOf`, a
property name that is not an identifier, ...) makes the case SKIP with the reason.

Handler errors, in FastMCP's idiom: domain → `ToolError` ("always sent to clients, regardless of
mask_error_details"), transport → `ConnectionError`, internal → `RuntimeError`.

Cap: `ResponseLimitingMiddleware(max_size=N)` measures the serialized `ToolResult` (content and
structured content, as JSON) in bytes and, when it is over N, keeps the head of the joined text,
cut at N − len(suffix) − 50 bytes on a UTF-8 boundary, followed by the fixed suffix
`\\n\\n[Response truncated due to size limit]`. Declared as observed: bytes, head only,
configurable (`max_size`); a case asking for a limit in chars SKIPs (max_size counts bytes only).

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from importlib.metadata import version
from typing import Any

# Offline and quiet before FastMCP reads its settings: no OpenTelemetry spans, no log noise.
os.environ.setdefault("FASTMCP_TELEMETRY_MODE", "off")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "CRITICAL")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.exceptions import ToolError  # noqa: E402
from fastmcp.server.middleware.response_limiting import ResponseLimitingMiddleware  # noqa: E402
from fastmcp.tools import Tool as FastMCPTool  # noqa: E402
from harness_conformance_adapter import (  # noqa: E402
    MISSING, Adapter, Call, Cap, Capabilities, Deadline, Errors, Implementation, Skip, Turn,
)
from harness_conformance_adapter.pydantic_schema import KEYWORDS, keyword_function  # noqa: E402
from mcp import MCPError  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

DEFAULT = "--default" in sys.argv[1:]
MAX_SIZE = 1_000_000
"""ResponseLimitingMiddleware's default max_size (bytes), the cap of the production column."""


def signature_schema(schema: Any) -> Any:
    """The schema as a signature states it: FastMCP's function tools are closed objects.

    FastMCP validates a call against the function's signature with pydantic, which refuses an
    unexpected keyword argument (`unexpected_keyword_argument`), so a signature *is*
    `additionalProperties: false` at the top level. The kit's `parameters` assumes the opposite
    (true of harnesses that drop unknown arguments) and refuses a closed schema; this works around
    it locally (reported to the kit's owners): a top-level `additionalProperties: false` is what
    the signature already says, so it is dropped before translation. Open schemas keep being
    translated to the same (closed) signature, FastMCP's only form.
    """
    if isinstance(schema, dict) and schema.get("additionalProperties") is False:
        return {k: v for k, v in schema.items() if k != "additionalProperties"}
    return schema


def ids_testable(calls: list[Call]) -> bool:
    """Whether every call has its own non-empty string id (else the case is about correlation)."""
    ids = [c.id for c in calls]
    return all(isinstance(i, str) and i for i in ids) and len(set(ids)) == len(ids)


def sendable(call: Call) -> bool:
    """Whether the client can put this call on the wire as the model made it: `tools/call` has a
    string name and object (or absent) arguments. The client's request model
    (`CallToolRequestParams`) refuses other names and arguments before sending, and it sends `null`
    arguments as absent ones, which a server rightly reads as `{}`: the server never sees the null."""
    return isinstance(call.get("name"), str) and (call.input is MISSING or isinstance(call.input, dict))


def build(turn: Turn) -> FastMCP:
    config = turn.case.config
    for call in turn.case.calls:
        if call.form != "structured":
            raise Skip("MCP tool calls carry arguments as a JSON object; raw and text forms are not expressible")
        if not sendable(call):
            raise Skip("an MCP tools/call request has a string name and object arguments; the client refuses "
                       "this call before sending, so the server cannot be judged on it")
    if not ids_testable(list(turn.case.calls)):
        raise Skip("MCP tools/call carries no tool-use id: correlating results with missing, empty, "
                   "non-string or repeated ids is the host's job, not the server's")
    if not DEFAULT and config.cap_unit == "chars":
        raise Skip("ResponseLimitingMiddleware's max_size counts UTF-8 bytes; a limit in chars cannot be set")
    server = FastMCP("conformance") if DEFAULT else FastMCP("conformance", mask_error_details=True)
    timeout = None if config.deadline_ms is None else config.deadline_ms / 1000
    for tool in turn.case.tools:
        server.add_tool(FastMCPTool.from_function(
            keyword_function(tool, turn, signature_schema(tool.input_schema)), name=tool.name,
            description=tool.description, timeout=timeout,
        ))
    if not DEFAULT:
        server.add_middleware(ResponseLimitingMiddleware(max_size=config.cap_limit or MAX_SIZE))
    return server


def text_of(native: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in native.get("content", [])
                   if isinstance(b, dict) and b.get("type") == "text")


async def run_turn(server: FastMCP, turn: Turn) -> None:
    async with Client(server) as client:
        for call in turn.case.calls:
            turn.current_call = call  # the host calls one tool at a time, so it knows which call runs
            with turn.harness_may_raise(call):
                try:
                    result = await client.call_tool_mcp(call.get("name"), call.get("input"))
                except MCPError as exc:  # the host shows a JSON-RPC error as an error result
                    turn.report(call.id, is_error=True, content=exc.error.message,
                                native={"jsonrpc_error": exc.error.model_dump(mode="json", exclude_none=True)})
                    continue
                native = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                turn.report(call.id, is_error=bool(result.is_error), content=text_of(native), native=native)


adapter = Adapter(
    Implementation(
        "fastmcp (FastMCP() defaults)" if DEFAULT
        else "fastmcp (mask_error_details=True, ResponseLimitingMiddleware)",
        "python", version("fastmcp"), "https://gofastmcp.com/",
    ),
    Capabilities(
        cap=None if DEFAULT else Cap(unit="bytes", limit=MAX_SIZE, strategies=["head_only"], configurable=True),
        retryability=False, deadline=Deadline(configurable=True), keywords=KEYWORDS,
        call_forms=["structured"], parallel=False, history=False,
    ),
    Errors(domain=ToolError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
