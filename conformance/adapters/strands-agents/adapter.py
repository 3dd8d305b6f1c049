"""Adapter: Strands Agents (`strands-agents`) behind the conformance protocol.

What is tested: a Strands `Agent` with its default tool executor (`ConcurrentToolExecutor`,
`tools/executors/concurrent.py` over `_executor.py`), whose model is a scripted `Model` (offline,
no network) written the way Strands' own tests mock a provider (`tests/fixtures/
mocked_model_provider.py`: a model message turned into the stream events a provider emits). On its
first request the model streams the case's calls as `toolUse` content blocks of one assistant
message (stop reason `tool_use`); Strands parses each block's input (`event_loop/streaming.py`),
runs the tools and appends one user message of `toolResult` blocks; the adapter reads the NEXT
`stream` call's messages — exactly what the model would see — and reports one result per
`toolResult` block of that last user message, in order: `toolUseId`, `status == "error"` as
`is_error` (how Strands' Anthropic and Bedrock providers send it), and the content blocks' text
joined (a `json` block as `json.dumps(value, ensure_ascii=False)`, as Strands' Anthropic provider
writes it).

Tools: `@tool(name=..., description=..., context=True)` over a Python function whose signature is
written from the case's schema by the kit's `pydantic_schema.parameters` — the decorator is the
way Strands' docs define tools, and it validates the input with a pydantic model built from that
signature (`tools/decorator.py` `validate_input`). A signature cannot close the argument object
(`additionalProperties: false`) or hold a property that is not a Python identifier; those cases
SKIP. Constraints and descriptions of a parameter go in a `Field(...)` default, the form `@tool`
accepts (it refuses `Annotated[T, Field(...)]`). `context=True` gives the function Strands' `ToolContext`, so invocations carry the call id.

Handler errors, in Strands' idiom: domain → the tool returns a tool result
`{"status": "error", "content": [{"text": message}]}` (how Strands' docs have a tool report a
failure), transport → `ConnectionError`, internal → `RuntimeError` (the decorator catches both and
shows `Error: <Type> - <text>`).

Calls: a provider streams a tool call's input as JSON text deltas, so a structured call's `input`
is streamed as `json.dumps(input)` (what the mocked provider does) and a call with arguments as text
streams that text; a raw block SKIPs. An absent `id` leaves `toolUseId` out of the block.

Telemetry: Strands traces through OpenTelemetry only when an exporter is configured; none is, and
the SDK is disabled by environment.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
import os
import warnings
from importlib.metadata import version
from typing import Annotated, Any, AsyncIterator, get_args, get_origin

os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from harness_conformance_adapter import (  # noqa: E402
    Adapter, Call, Capabilities, Errors, Implementation, ReturnInstead, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import (  # noqa: E402
    KEYWORDS, Untranslatable, parameters, present_arguments, safe_name, skip_for,
)
from pydantic.fields import FieldInfo  # noqa: E402
from pydantic_core import PydanticUndefined  # noqa: E402
from strands import Agent, ToolContext, tool  # noqa: E402
from strands.models.model import Model  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def tool_for(case_tool: Tool, turn: Turn) -> Any:
    """A decorated Strands tool with the case's parameters, as a Strands user would write it."""
    try:
        params = parameters(case_tool.input_schema, case_tool.name)
    except Untranslatable as exc:
        raise skip_for(case_tool.name, exc) from None
    if any(name in ("tool_context", "agent") for name, _, _ in params):
        raise Skip(f"tool {case_tool.name!r}: Strands injects its own 'tool_context' and 'agent' parameters")
    handle = turn.async_handler(case_tool)

    async def fn(tool_context: ToolContext, **kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs), tool_use_id=tool_context.tool_use.get("toolUseId"))

    signature = [strands_parameter(name, ann, default) for name, ann, default in params]
    signature.append(inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY, annotation=ToolContext))
    fn.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    fn.__annotations__ = {p.name: p.annotation for p in signature}
    fn.__name__ = fn.__qualname__ = safe_name(case_tool.name)
    fn.__doc__ = case_tool.description
    return tool(name=case_tool.name, description=case_tool.description, context=True)(fn)


def strands_parameter(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    """A keyword parameter in the form `@tool` accepts: constraints and description as a `Field` default.

    `@tool` refuses `Annotated[T, Field(...)]` (`decorator.py` `_extract_annotated_metadata` raises
    NotImplementedError) and takes `name: T = Field(...)` instead, which is what a Strands user writes.
    """
    fields = []
    if get_origin(annotation) is Annotated:
        annotation, *meta = get_args(annotation)
        fields = [m for m in meta if isinstance(m, FieldInfo)]
    if fields:
        value = PydanticUndefined if default is inspect.Parameter.empty else default
        default = FieldInfo.merge_field_infos(*fields, default=value)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def tool_use_events(call: Call) -> list[dict[str, Any]]:
    """One call as a provider streams it: a `toolUse` block start, its input as JSON text, a stop."""
    if call.form == "raw":
        raise Skip("Strands receives tool calls from its model provider already split into id, name and input; "
                   "a raw block is not expressible")
    start: dict[str, Any] = {"name": call.get("name")}
    if "id" in call.raw:
        start["toolUseId"] = call.get("id")
    if call.form == "arguments_text":
        text = call.arguments_text
    else:
        text = "" if "input" not in call.raw else json.dumps(call.get("input"))
    return [{"contentBlockStart": {"start": {"toolUse": start}}},
            {"contentBlockDelta": {"delta": {"toolUse": {"input": text}}}},
            {"contentBlockStop": {}}]


class ScriptedModel(Model):
    """First request: the case's calls. Later requests: recorded, answered with text."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.requests: list[Any] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, output_model: Any, prompt: Any, system_prompt: Any = None,
                                **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("no structured output in these cases")
        yield  # pragma: no cover

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None,
                     **kwargs: Any) -> AsyncIterator[Any]:
        self.requests.append(copy.deepcopy(messages))
        yield {"messageStart": {"role": "assistant"}}
        if len(self.requests) == 1:
            for event in self.events:
                yield event
            yield {"messageStop": {"stopReason": "tool_use"}}
        else:
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": "done"}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}


def build(turn: Turn) -> tuple[Agent, ScriptedModel]:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    model = ScriptedModel([e for c in turn.case.calls for e in tool_use_events(c)])
    return Agent(model=model, tools=tools, callback_handler=None), model


def block_text(block: Any) -> str:
    if "text" in block:
        return str(block["text"])
    if "json" in block:
        return json.dumps(block["json"], ensure_ascii=False)
    return ""


def history_of(messages: list[Any]) -> list[Any]:
    out: list[Any] = []
    for message in messages:
        if message.get("role") == "assistant":
            uses = [b["toolUse"] for b in message.get("content", []) if "toolUse" in b]
            if uses:
                out = [{"id": u.get("toolUseId"), "name": u.get("name"), "input": to_json(u.get("input"))} for u in uses]
    return out


async def run_turn(built: tuple[Agent, ScriptedModel], turn: Turn) -> None:
    agent, model = built
    with turn.harness_may_raise(turn.case.calls) as running:
        await agent.invoke_async("Run the tools.")
    if running.raised or len(model.requests) < 2:
        turn.history = history_of(agent.messages)
        return
    messages = model.requests[1]
    last = messages[-1] if messages else {}
    for block in last.get("content", []) if last.get("role") == "user" else []:
        result = block.get("toolResult")
        if result is not None:
            turn.report(result.get("toolUseId"), is_error=result.get("status") == "error",
                        content="".join(block_text(b) for b in result.get("content", [])), native=to_json(result))
    turn.history = history_of(messages)


adapter = Adapter(
    Implementation("strands-agents (Agent, @tool, ConcurrentToolExecutor)", "python", version("strands-agents"),
                   "https://github.com/strands-agents/sdk-python"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=True),
    Errors(domain=lambda m: ReturnInstead({"status": "error", "content": [{"text": m}]}),
           transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
