"""The MCP host, once: what the model sees of an MCP server's answers (PROTOCOL.md section 3b).

Why this module exists: an MCP SDK is a server, and what the model is shown is decided by the host
that turns each `tool_use` into a `tools/call` request and its answer into a `tool_result`. If
every MCP adapter wrote its own host loop, a column would judge that loop (a host that drops a
JSON-RPC error makes the SDK look as if it answered nothing). This helper is the one host every
MCP adapter uses, doing what mainstream hosts (Claude Desktop, Claude Code, VS Code) do:

- the turn's calls go out one at a time, in order, as `tools/call` with the call's name and its
  `input` as `arguments`, exactly as sent (absent stays absent: `MISSING` reaches `call_tool`);
  raw and arguments-text calls do not exist in MCP and make the case SKIP;
- each call gets exactly one result, carrying the model's id (the server never sees ids, so MCP
  adapters declare `call_ids=False`);
- a `CallToolResult` (as its MCP JSON: `content` blocks, `isError`) becomes the result, text blocks
  concatenated in order, and its blocks reported as `blocks` when it holds more than text;
- a JSON-RPC error answering the request, the client's own request timeout, and a request the
  client refuses to send are shown as an error result carrying the message the SDK's client gives
  (`message(exc)`); the adapter names those exception types (`errors`);
- anything else the client raises is the SDK failing: no result, logged by
  `Turn.harness_may_raise`.

The host adds no cap, code, retry hint or wording of its own. The SDK is the adapter's, so this
module imports none: the adapter passes a `call_tool` coroutine that calls its SDK's client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .case import Call
from .jsonio import Json
from .turn import Skip, Turn

CallTool = Callable[[Json, Json], Awaitable[Any]]
"""`await call_tool(name, arguments)`: one `tools/call` through the SDK's client; `arguments` is
`MISSING` when the call has no `input`. Returns the `CallToolResult` as MCP JSON (a dict with
`content` and optionally `isError`)."""


def text_of(result: Any) -> str:
    """The text the model is shown for a `CallToolResult` (MCP JSON): its text blocks, in order."""
    blocks = result.get("content") if isinstance(result, dict) else None
    if not isinstance(blocks, list):
        return ""
    return "".join(b["text"] for b in blocks
                   if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))


_LINK_FIELDS = ("uri", "name", "title", "description", "mimeType", "size")


def blocks_of(result: Any) -> list[Json] | None:
    """The `blocks` to report for a `CallToolResult` (MCP JSON): its text, image, embedded
    resource, audio and resource link blocks in order, with only the fields the protocol reads (annotations and `_meta`
    left out), or None when it holds text only (the result is then its `content`). Blocks of
    kinds the protocol has no name for are left out: no case returns them."""
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list):
        return None
    out: list[Json] = []
    for b in content:
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            out.append({"type": "text", "text": b["text"]})
        elif kind in ("image", "audio"):
            out.append({"type": kind, "data": b.get("data"), "mimeType": b.get("mimeType")})
        elif kind == "resource_link":
            out.append({"type": kind, **{k: b[k] for k in _LINK_FIELDS if k in b}})
        elif kind == "resource" and isinstance(b.get("resource"), dict):
            r = b["resource"]
            out.append({"type": "resource",
                        "resource": {k: r[k] for k in ("uri", "mimeType", "text", "blob") if k in r}})
    if all(b["type"] == "text" for b in out):
        return None
    return out


async def serve_turn(turn: Turn, call_tool: CallTool, *, errors: tuple[type[BaseException], ...],
                     message: Callable[[BaseException], str] = str,
                     native_error: Callable[[BaseException], Json] | None = None) -> None:
    """Runs the turn's calls through the host, reporting one result per call the SDK answered.

    `errors`: the exception types the SDK's client raises for a JSON-RPC error response, for its
    own request timeout and for a request it refuses to send; `message(exc)`: the text a host shows
    for one (the SDK client's message); `native_error(exc)`: the error as JSON, for reports.
    """
    for call in turn.case.calls:
        if call.form != "structured":
            raise Skip("MCP tool calls carry arguments as a JSON object; raw and text forms are not expressible")
    for call in turn.case.calls:
        await _one(turn, call, call_tool, errors, message, native_error)


async def _one(turn: Turn, call: Call, call_tool: CallTool, errors: tuple[type[BaseException], ...],
               message: Callable[[BaseException], str],
               native_error: Callable[[BaseException], Json] | None) -> None:
    turn.current_call = call  # one call at a time, so handlers know which call runs
    with turn.harness_may_raise(call):
        try:
            result = await call_tool(call.get("name"), call.input)
        except errors as exc:
            native: Json = {"error": message(exc)} if native_error is None else native_error(exc)
            turn.report(call.id_or_none, is_error=True, content=message(exc), native=native)
            return
        is_error = result.get("isError") is True if isinstance(result, dict) else False
        turn.report(call.id_or_none, is_error=is_error, content=text_of(result), native=result,
                    blocks=blocks_of(result))
    turn.current_call = None


__all__ = ["CallTool", "blocks_of", "serve_turn", "text_of"]
