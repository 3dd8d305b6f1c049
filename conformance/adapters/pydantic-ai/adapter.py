"""Adapter: pydantic-ai's agent loop behind the conformance protocol.

What is tested: an `Agent` whose model is a scripted `FunctionModel` (offline, no network). On its
first request the model answers with the case's calls as `ToolCallPart`s, all in one response
(one assistant turn); pydantic-ai validates and runs them with its own tool manager; the adapter
reads the NEXT model request, which is exactly what the model would be shown, and reports one
result per tool part in it, in order. `content` is rendered as pydantic-ai's Anthropic model
renders a `tool_result` (`content_items(mode="str", wrap_if_error=False)` joined), `is_error` is
`outcome in ERROR_OUTCOMES` (what that model sends as `is_error`).

Tools: `Tool(fn, takes_ctx=True, timeout=...)` where `fn(ctx, args: <Model>)` takes one pydantic
model — pydantic-ai then uses the model's JSON Schema as the tool's whole parameter schema, and
`additionalProperties` can be stated exactly (a plain signature is always closed). The model is
written from the case's schema by the kit's `pydantic_schema.root_model`; what it cannot express
SKIPs.

Handler errors, in pydantic-ai's idiom: domain → `ToolFailed` (terminal failure shown to the model),
transport → `ConnectionError` (what a network client raises, as in the other adapters: choosing
`ModelRetry` would be the adapter deciding to retry, which is the harness's decision), internal →
`RuntimeError`.

Calls are passed as the model sent them: a call without `id` gets pydantic-ai's generated id, one
without `input` no `args`.

Codes: pydantic-ai marks each tool return with a typed `outcome` and, when retried, a typed
`retry.cause`; the adapter reports `retry.cause` for retried parts and `outcome` for other error
parts. Only the classes pydantic-ai itself distinguishes are mapped.

When `agent.run` raises (an ordinary exception from a tool, duplicate call ids, ...), the run is
over and the model sees nothing: no results are reported and the kit writes the exception to
stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import (
    MISSING, Adapter, Call, Capabilities, Deadline, Errors, Implementation, Skip, Tool as CaseTool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import Untranslatable, KEYWORDS, root_model, skip_for
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.messages import (
    ERROR_OUTCOMES,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def tool_for(tool: CaseTool, turn: Turn) -> Tool[None]:
    try:
        model = root_model(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(ctx: RunContext[None], args: Any) -> object:
        return await handle(args, tool_use_id=ctx.tool_call_id)

    handler.__annotations__ = {"ctx": RunContext[None], "args": model, "return": object}
    deadline_ms = turn.case.config.deadline_ms
    return Tool(
        handler, takes_ctx=True, name=tool.name, description=tool.description,
        timeout=None if deadline_ms is None else deadline_ms / 1000,
    )


def call_part(call: Call) -> ToolCallPart:
    if call.form == "raw":
        raise Skip("pydantic-ai receives calls already split into name, id and arguments; a raw block is not expressible")
    extra: dict[str, Any] = {"tool_call_id": call.id} if call.id is not MISSING else {}
    if call.form == "arguments_text":
        extra["args"] = call.arguments_text
    elif call.input is not MISSING:
        extra["args"] = call.input
    return ToolCallPart(tool_name=call.get("name"), **extra)


def result_of(part: Any, turn: Turn) -> None:
    outcome = getattr(part, "outcome", "failed")
    if isinstance(part, RetryPromptPart):  # older shape of a retry; kept for completeness
        content, is_error, code = part.model_response(), True, "retry"
    else:
        content = "".join(i for i in part.content_items(mode="str", wrap_if_error=False) if isinstance(i, str))
        is_error = outcome in ERROR_OUTCOMES
        retry = getattr(part, "retry", None)
        code = retry.cause if (outcome == "retried" and retry is not None) else (outcome if is_error else None)
    turn.report(part.tool_call_id, is_error=is_error, content=content, code=code, native=_native(part))


def _native(part: Any) -> dict[str, Any]:
    fields = ("part_kind", "tool_name", "tool_call_id", "content", "outcome", "retry")
    out = {f: getattr(part, f) for f in fields if hasattr(part, f)}
    if out.get("retry") is not None:
        out["retry"] = {"cause": out["retry"].cause, "attempt": out["retry"].attempt,
                        "max_retries": out["retry"].max_retries}
    return out


def history_of(parts: list[Any]) -> list[Any]:
    """The calls as the transcript's model response keeps them after the turn."""
    out = []
    for p in parts:
        if isinstance(p, ToolCallPart):
            key = "arguments_text" if isinstance(p.args, str) else "input"
            out.append({"id": p.tool_call_id, "name": p.tool_name, key: to_json(p.args)})
    return out


@dataclass
class Scripted:
    """The agent, the calls its scripted model answers with, and what that model was sent next."""

    agent: Agent[None, str]
    parts: list[ToolCallPart]
    seen: dict[str, Any]


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    parts = [call_part(c) for c in turn.case.calls]
    seen: dict[str, Any] = {}

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if "first" not in seen:
            seen["first"] = True
            return ModelResponse(parts=parts)
        seen.setdefault("next_request", messages[-1])
        return ModelResponse(parts=[TextPart("done")])

    return Scripted(Agent(FunctionModel(model), tools=tools), parts, seen)


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    with turn.harness_may_raise(turn.case.calls) as attempt:
        run = await scripted.agent.run("run the tools")
    if attempt.raised:
        # The run is over; the transcript is the model response the run was holding.
        turn.history = history_of(scripted.parts)
        return
    request = scripted.seen.get("next_request")
    tool_parts = [] if not isinstance(request, ModelRequest) else [
        p for p in request.parts if isinstance(p, (ToolReturnPart, RetryPromptPart))
    ]
    for part in tool_parts:
        result_of(part, turn)
    first = next((m for m in run.all_messages() if isinstance(m, ModelResponse)), None)  # the turn under test
    turn.history = history_of(first.parts if first else [])


adapter = Adapter(
    Implementation("pydantic-ai (Agent + FunctionModel)", "python", version("pydantic-ai-slim"), "https://ai.pydantic.dev/"),
    Capabilities(
        cap=None,
        codes={"invalid_arguments": "validation_error", "unknown_tool": "unknown_tool", "tool_refused": "failed"},
        retryability=False, deadline=Deadline(configurable=True), keywords=KEYWORDS,
        call_forms=["structured", "arguments_text"], parallel=True, history=True,
    ),
    Errors(domain=ToolFailed, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
