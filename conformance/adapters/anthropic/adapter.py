"""Adapter: the Anthropic Python SDK's tool runner behind the conformance protocol.

What is tested: `client.beta.messages.tool_runner(...)` of an `AsyncAnthropic` client whose HTTP
client is an `httpx2.AsyncClient` over an `httpx2.MockTransport` (the SDK's own documented hook
for a custom HTTP client; no network). The fake Messages API answers the first request with the
case's calls as `tool_use` blocks of one assistant message (`stop_reason: "tool_use"`), exactly as
the case wrote them (JSON on the wire: the SDK parses it as it parses any response); the runner
dispatches them (`anthropic/lib/tools/_beta_runner.py`, `BaseAsyncToolRunner._generate_tool_call_response`
and `_run_tool`; rendering in `_tool_dispatch.py`), and the adapter reports the `tool_result`
blocks of the NEXT request the SDK sends — what the model is shown — in order: `content` is the
block's text (its text blocks joined when it is a list), `is_error` its `is_error`.

Tools: `beta_async_tool(fn, name=..., description=...)` over a function whose signature the kit's
`pydantic_schema.parameters` writes (the SDK builds the tool's schema from the signature and
validates each call with `pydantic.validate_call`, as its docs teach). A plain signature is a
closed object (pydantic refuses unexpected keyword arguments and writes `additionalProperties:
false`), so a schema with `additionalProperties: false` gets the plain signature and an open one
the same signature plus `**kwargs: Any` — the only form of an open object a signature has (the
kit's `pydantic_schema.closed_signature`).
Schema-valued `additionalProperties`, and what the kit cannot translate, SKIP.

Returns: a tool returns `str` or content blocks (the SDK's `BetaFunctionToolResultType`), so the
scripted handlers return JSON values as their `json.dumps` text, as a tool author must; a
non-finite output would be the tool author's serialisation, not the SDK's, so those cases SKIP.
A multi-part answer (behaviour `content_blocks`) is a list of Messages blocks: an image as a base64
`image`, a PDF as a base64 `document` titled with its URI, a text resource as a text block (binary
files other than PDFs have no block and SKIP); the blocks of the next request's `tool_result` are
reported back in the protocol's form.

Handler errors, in the SDK's idiom: domain → `anthropic.lib.tools.ToolError` (the documented "return
this content with `is_error: true`" exception), transport → `ConnectionError`, internal →
`RuntimeError`; any exception other than `ToolError` is shown to the model as `repr(exc)`, cut to
4,096 characters (`_toolsets/_sanitize.py`, `error_text`) — the SDK's own handling of long error text.

Calls: only structured `tool_use` blocks exist in the Messages API (its `input` is a JSON object,
never text); other forms SKIP. No cap (tool results are sent whole), no deadline (the runner has
no per-tool timeout), no codes; calls run one at a time, in order, from one assistant message.

When the runner raises, the run is over and the model sees nothing: no results are reported and
the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import httpx2
from anthropic import AsyncAnthropic, beta_async_tool
from anthropic.lib.tools import ToolError
from harness_conformance_adapter import (
    Adapter, Capabilities, ContentBlocks, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import (
    KEYWORDS, Untranslatable, closed_signature, present_arguments, safe_name, skip_for,
)

# The Messages wire (rendering a turn, reading the tool results of a request) is the fake provider's,
# shared with the coding-agent adapters: conformance/wire/dialects.py, driven by conformance/wire/inprocess.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "wire"))
import dialects  # noqa: E402
from inprocess import ScriptedProvider  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

JSON = {"content-type": "application/json"}
MODEL = "claude-sonnet-4-5"


def final_output(behavior: Any) -> Any:
    """The output a behaviour finally returns (`{kind: spec}`), or None when it raises."""
    while isinstance(behavior, dict):
        if "return" in behavior:
            return behavior["return"]
        behavior = behavior.get("then")
    return None


def tool_for(tool: Tool, turn: Turn) -> Any:
    """`beta_async_tool` over the function a user would write for this tool."""
    output = final_output(tool.behavior)
    if isinstance(output, dict) and ("non_finite" in output or "non_finite_in" in output):
        raise Skip("a tool of this SDK returns text: serialising a non-finite number is the tool author's "
                   "json.dumps, not the SDK's")
    if binary_not_pdf(tool):
        raise Skip("the Messages API's tool results carry binary files only as PDF documents")
    try:
        signature, annotations = closed_signature(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    handler.__signature__ = signature  # type: ignore[attr-defined]
    handler.__annotations__ = annotations
    handler.__name__ = handler.__qualname__ = safe_name(tool.name)
    return beta_async_tool(handler, name=tool.name, description=tool.description)


def present(value: Any, kind: str) -> Any:
    """A returned value as a tool of this SDK returns it: text (JSON values as their JSON text), or
    a list of Messages content blocks for a multi-part answer."""
    if isinstance(value, ContentBlocks):
        return [anthropic_block(b) for b in value.blocks]
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def anthropic_block(block: dict[str, Any]) -> dict[str, Any]:
    """A case's block (MCP's form) as a tool author writes it for the Messages API: an image as a
    base64 `image`, a PDF as a base64 `document` titled with its URI, a text resource as its text."""
    if block["type"] == "image":
        return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}}
    if block["type"] == "resource":
        resource = block["resource"]
        if "text" in resource:
            return {"type": "text", "text": resource["text"]}
        return {"type": "document", "title": resource["uri"],
                "source": {"type": "base64", "media_type": resource["mimeType"], "data": resource["blob"]}}
    return {"type": "text", "text": block["text"]}


def case_block(block: Any) -> dict[str, Any] | None:
    """A Messages content block of a `tool_result` in the protocol's (MCP's) form, or None for a kind
    that form has no name for. A `document` is a resource, its title the URI the tool gave it."""
    source = block.get("source") if isinstance(block, dict) else None
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")}
    if kind == "image" and isinstance(source, dict) and source.get("type") == "base64":
        return {"type": "image", "data": source.get("data"), "mimeType": source.get("media_type")}
    if kind == "document" and isinstance(source, dict) and source.get("type") == "base64":
        return {"type": "resource", "resource": {"uri": block.get("title"), "mimeType": source.get("media_type"),
                                                 "blob": source.get("data")}}
    return None


def binary_not_pdf(tool: Tool) -> bool:
    """Whether the tool returns a binary resource the Messages API has no block for (only PDFs)."""
    output = final_output(tool.behavior)
    blocks = output.get("content_blocks", []) if isinstance(output, dict) else []
    return any(b.get("type") == "resource" and "blob" in b.get("resource", {})
               and b["resource"].get("mimeType") != "application/pdf" for b in blocks)


@dataclass
class Scripted:
    client: AsyncAnthropic
    api: ScriptedProvider
    tools: list[Any]


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    api = ScriptedProvider(dialects.ANTHROPIC, turn, MODEL)
    transport = httpx2.MockTransport(lambda r: httpx2.Response(200, content=api.answer(r.content), headers=JSON))
    client = AsyncAnthropic(api_key="conformance", base_url="http://anthropic.invalid", max_retries=0,
                            http_client=httpx2.AsyncClient(transport=transport))
    return Scripted(client, api, tools)


def history_entry(call: Any) -> Any:
    return {k: call[k] for k in ("id", "name", "input") if k in call}


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    turn.history = [history_entry(c) for c in scripted.api.calls]
    with turn.harness_may_raise(turn.case.calls):
        runner = scripted.client.beta.messages.tool_runner(
            model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": "run the tools"}], tools=scripted.tools,
        )
        await runner.until_done()
    request = scripted.api.next_request()
    if request is None:
        return
    for m in request.get("messages", []):
        if m.get("role") == "assistant" and isinstance(m.get("content"), list):
            uses = [b for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
            if uses:
                turn.history = [history_entry(b) for b in uses]
    for result in scripted.api.results() or []:
        native = result["native"].get("content")
        blocks = None
        if isinstance(native, list):
            blocks = [b for b in (case_block(x) for x in native) if b is not None]
        turn.report(result["tool_use_id"], is_error=result["is_error"], content=result["content"],
                    native=to_json(result["native"]), blocks=blocks)


adapter = Adapter(
    Implementation("Anthropic SDK tool runner (beta_async_tool + tool_runner)", "python", version("anthropic"),
                   "https://github.com/anthropics/anthropic-sdk-python"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured"], parallel=True,
                 history=True, behaviors=["content_blocks"]),
    Errors(domain=ToolError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
    present=present,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
