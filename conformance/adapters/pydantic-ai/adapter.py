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
written from the case's schema by python-common/schema2py.py; what it cannot express SKIPs.

Handler errors, in pydantic-ai's idiom: domain → `ToolFailed` (terminal failure shown to the model),
transport → `ModelRetry` (ask the model to try again), internal → `RuntimeError`.

Codes: pydantic-ai marks each tool return with a typed `outcome` and, when retried, a typed
`retry.cause`; the adapter reports `retry.cause` for retried parts and `outcome` for other error
parts. Only the classes pydantic-ai itself distinguishes are mapped.

When `agent.run` raises (an ordinary exception from a tool, duplicate call ids, ...), the run is
over and the model sees nothing: no results are reported and the exception goes to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import warnings
from importlib.metadata import version

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))

import hcproto  # noqa: E402
import schema2py  # noqa: E402
from pydantic_ai import Agent, RunContext, Tool  # noqa: E402
from pydantic_ai.exceptions import ModelRetry, ToolFailed  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ERROR_OUTCOMES,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

RAISERS = hcproto.Raisers(domain=ToolFailed, transport=ModelRetry, internal=RuntimeError)

HELLO = {
    "implementation": {
        "name": "pydantic-ai (Agent + FunctionModel)",
        "language": "python",
        "version": version("pydantic-ai-slim"),
        "homepage": "https://ai.pydantic.dev/",
    },
    "capabilities": {
        "cap": None,
        "codes": {"invalid_arguments": "validation_error", "unknown_tool": "unknown_tool", "tool_refused": "failed"},
        "retryability": False,
        "deadline": {"configurable": True},
        "keywords": schema2py.KEYWORDS,
        "call_forms": ["structured", "arguments_text"],
        "parallel": True,
        "history": True,
    },
}


def tool_for(tool: dict, unit: str, deadline_ms, invocations: hcproto.Invocations) -> Tool:
    try:
        model = schema2py.root_model(tool["input_schema"], tool["name"])
    except schema2py.Untranslatable as exc:
        raise hcproto.Skip(f"tool {tool['name']!r}: {exc}") from None
    name, behavior = tool["name"], tool["behavior"]

    async def handler(ctx: RunContext[None], args) -> object:
        invocations.record(name, ctx.tool_call_id, args)
        return await hcproto.perform_async(behavior, args, unit, RAISERS)

    handler.__annotations__ = {"ctx": RunContext[None], "args": model, "return": object}
    return Tool(
        handler, takes_ctx=True, name=name, description=tool["description"],
        timeout=None if deadline_ms is None else deadline_ms / 1000,
    )


def call_part(call: dict) -> ToolCallPart:
    if "raw" in call:
        raise hcproto.Skip("pydantic-ai receives calls already split into name, id and arguments; a raw block is not expressible")
    args = call["arguments_text"] if "arguments_text" in call else call.get("input")
    extra = {"tool_call_id": call["id"]} if "id" in call else {}
    return ToolCallPart(tool_name=call.get("name"), args=args, **extra)


def result_of(part) -> dict:
    outcome = getattr(part, "outcome", "failed")
    if isinstance(part, RetryPromptPart):  # older shape of a retry; kept for completeness
        content, is_error, code = part.model_response(), True, "retry"
    else:
        content = "".join(i for i in part.content_items(mode="str", wrap_if_error=False) if isinstance(i, str))
        is_error = outcome in ERROR_OUTCOMES
        retry = getattr(part, "retry", None)
        code = retry.cause if (outcome == "retried" and retry is not None) else (outcome if is_error else None)
    result = {"tool_use_id": part.tool_call_id, "is_error": is_error, "content": content,
              "native": hcproto.jsonable(_native(part))}
    if code is not None:
        result["code"] = code
    return result


def _native(part) -> dict:
    fields = ("part_kind", "tool_name", "tool_call_id", "content", "outcome", "retry")
    out = {f: getattr(part, f) for f in fields if hasattr(part, f)}
    if out.get("retry") is not None:
        out["retry"] = {"cause": out["retry"].cause, "attempt": out["retry"].attempt,
                        "max_retries": out["retry"].max_retries}
    return out


async def run_async(case: dict) -> dict:
    unit = hcproto.cap_unit(case)
    deadline = (case.get("config") or {}).get("deadline_ms")
    invocations = hcproto.Invocations()
    tools = [tool_for(t, unit, deadline, invocations) for t in case["tools"]]
    parts = [call_part(c) for c in case["calls"]]
    seen: dict = {}

    def model(messages: list, info: AgentInfo) -> ModelResponse:
        if "first" not in seen:
            seen["first"] = True
            return ModelResponse(parts=parts)
        seen.setdefault("next_request", messages[-1])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), tools=tools)
    try:
        run = await agent.run("run the tools")
    except Exception as exc:
        # The run is over; the transcript is the model response the run was holding.
        hcproto.log_harness_raise([c.get("id") for c in case["calls"]], exc)
        return {"results": [], "invocations": invocations.entries, "history": history_of(parts)}
    request = seen.get("next_request")
    tool_parts = [] if not isinstance(request, ModelRequest) else [
        p for p in request.parts if isinstance(p, (ToolReturnPart, RetryPromptPart))
    ]
    first = next((m for m in run.all_messages() if isinstance(m, ModelResponse)), None)  # the turn under test
    history = history_of(first.parts if first else [])
    return {"results": [result_of(p) for p in tool_parts], "invocations": invocations.entries, "history": history}


def history_of(parts: list) -> list:
    """The calls as the transcript's model response keeps them after the turn."""
    out = []
    for p in parts:
        if isinstance(p, ToolCallPart):
            key = "arguments_text" if isinstance(p.args, str) else "input"
            out.append({"id": p.tool_call_id, "name": p.tool_name, key: hcproto.jsonable(p.args)})
    return out


def run_case(case: dict) -> dict:
    return asyncio.run(run_async(case))


if __name__ == "__main__":
    hcproto.serve(HELLO, run_case)
