"""Adapter: the OpenAI Agents SDK (`openai-agents`) behind the conformance protocol.

What is tested: an `Agent` run by `Runner.run` whose model is the SDK's own scripted model,
`agents.testing.ScriptedModel` (a `Model` subclass, offline). Its first step answers with the
case's calls as Responses-API `function_call` output items, all in one response (one assistant
turn); the SDK plans and runs them (`run_internal/tool_planning.py`, `tool_execution.py`); the
second step records the model call it receives, and the adapter reports the `function_call_output`
items of that call's input, in order — exactly what the model would be shown.

Tools: `function_tool(fn, name_override=..., description_override=..., timeout=...)` over a Python
function whose signature the kit's `pydantic_schema.parameters` writes from the case's schema (the
SDK builds its argument model and schema from the signature, as its docs teach). `strict_mode` is
left at its default (True, which the docs "strongly recommend"); when the SDK refuses a signature
in strict mode (an open nested object, a default it cannot make strict), the adapter builds it with
`strict_mode=False`, as the SDK's error message tells users to. What a signature cannot state (a
closed argument object, `oneOf`, `uniqueItems`, ...) SKIPs.

Calls: a `function_call` item carries its arguments as JSON text (the Responses API has no other
form); a structured call's input is `json.dumps`ed, as the API would have sent it, an
`arguments_text` call is its text. Items are built as the `openai` client builds them from a
response, without validation (`model_construct`), so an id of the wrong type reaches the SDK as
the wire had it; a call without `input` cannot be a `function_call` item and SKIPs.

What the model sees: a `function_call_output` item has `call_id` and `output` and nothing else:
the OpenAI wire has no error flag, so every result is reported with `is_error: false` (the
`output` text is the only signal the model gets).

Handler errors: the SDK has no exception type that shows its message to the model; every
exception a tool raises is turned into the `failure_error_function`'s text (default: a fixed
sentence). Domain → `ValueError`, transport → `ConnectionError`, internal → `RuntimeError`.

Capabilities: `timeout=` is the per-call deadline (`timeout_behavior="error_as_result"`, the
default); `is_enabled=False` hides a tool for the turn (feature `offered-tools`); a turn with
parallel calls off sets the agent's `ModelSettings(parallel_tool_calls=False)` and the run's
`ToolExecutionConfig(max_function_tool_concurrency=1)` (feature `serial-calls`). No cap, no codes.

When `Runner.run` raises (an unknown tool, arguments that fail validation, ...), the run is over
and the model sees nothing: no results are reported and the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import warnings
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from agents import Agent, ModelSettings, RunConfig, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.exceptions import UserError  # noqa: E402
from agents.run_config import ToolExecutionConfig  # noqa: E402
from agents.testing import ModelStep, ScriptedModel, assistant_message  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402
from harness_conformance_adapter import (  # noqa: E402
    MISSING, Adapter, Call, Capabilities, Deadline, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import (  # noqa: E402
    KEYWORDS, Untranslatable, parameters, present_arguments, safe_name, skip_for,
)
from openai.types.responses import ResponseFunctionToolCall  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
set_tracing_disabled(True)


def tool_for(tool: Tool, turn: Turn) -> Any:
    """`function_tool` over the function a user would write for this tool."""
    try:
        params = parameters(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(ctx: ToolContext[Any], **kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs), tool_use_id=ctx.tool_call_id)

    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ToolContext[Any])]
        + [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params]
    )
    handler.__annotations__ = {"ctx": ToolContext[Any], **{p: a for p, a, _ in params}}
    handler.__name__ = handler.__qualname__ = safe_name(tool.name)
    deadline_ms = turn.case.config.deadline_ms
    offered = turn.case.offered is None or tool.name in turn.case.offered
    options: dict[str, Any] = dict(
        name_override=tool.name, description_override=tool.description or None, use_docstring_info=False,
        is_enabled=offered, timeout=None if deadline_ms is None else deadline_ms / 1000,
    )
    try:
        return function_tool(handler, **options)
    except UserError:
        # The SDK's own advice when a signature cannot be made strict: set strict_mode=False.
        return function_tool(handler, strict_mode=False, **options)


def call_item(call: Call, index: int) -> ResponseFunctionToolCall:
    """The `function_call` output item the Responses API would have sent for this call."""
    if call.form == "raw":
        raise Skip("the Responses API delivers calls already split into call_id, name and arguments; "
                   "a raw block is not expressible")
    if call.form == "arguments_text":
        arguments: Any = call.arguments_text
    elif call.input is MISSING:
        raise Skip("a Responses-API function_call item always carries its arguments text")
    else:
        arguments = json.dumps(call.input, ensure_ascii=False)
    fields: dict[str, Any] = {"id": f"fc_{index}", "type": "function_call", "arguments": arguments, "status": "completed"}
    if call.id is not MISSING:
        fields["call_id"] = call.id
    if call.name is not MISSING:
        fields["name"] = call.name
    # The openai client builds response items without validation (construct_type); so does this.
    return ResponseFunctionToolCall.model_construct(**fields)


@dataclass
class Scripted:
    """The agent, its scripted model, and the run configuration."""

    agent: Agent[Any]
    model: ScriptedModel
    run_config: RunConfig
    items: list[ResponseFunctionToolCall]


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    items = [call_item(c, i) for i, c in enumerate(turn.case.calls)]
    model = ScriptedModel([ModelStep(output=items), ModelStep(output=[assistant_message("done")])])
    serial = turn.case.parallel_calls is False
    settings = ModelSettings(parallel_tool_calls=False) if serial else ModelSettings()
    agent = Agent(name="conformance", instructions="Run the tools.", model=model, tools=tools,
                  model_settings=settings)
    run_config = RunConfig(
        tracing_disabled=True,
        tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1) if serial else None,
    )
    return Scripted(agent, model, run_config, items)


def _get(item: Any, key: str) -> Any:
    return item.get(key, MISSING) if isinstance(item, dict) else getattr(item, key, MISSING)


def output_text(output: Any) -> str:
    """A `function_call_output`'s output as the model reads it (a string, or its text parts)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(str(_get(p, "text")) for p in output if _get(p, "type") in ("input_text", "output_text"))
    return "" if output is MISSING or output is None else json.dumps(to_json(output))


def history_entry(item: Any, call: Call | None) -> Any:
    """A `function_call` item as the transcript keeps it. Its arguments are JSON text; for a call the
    model sent structured, the adapter wrote that text (`json.dumps`), so it is read back as `input`
    (a harness that changed the text shows as a changed input)."""
    out: dict[str, Any] = {}
    for key, field_name in (("id", "call_id"), ("name", "name")):
        value = _get(item, field_name)
        out[key] = None if value is MISSING else to_json(value)
    arguments = _get(item, "arguments")
    if call is not None and call.form == "structured" and isinstance(arguments, str):
        try:
            out["input"] = json.loads(arguments)
            return out
        except ValueError:
            pass
    out["arguments_text"] = None if arguments is MISSING else to_json(arguments)
    return out


def history_of(items: list[Any], turn: Turn) -> list[Any]:
    calls = list(turn.case.calls)
    return [history_entry(item, calls[i] if i < len(calls) else None) for i, item in enumerate(items)]


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    turn.history = history_of(scripted.items, turn)
    with turn.harness_may_raise(turn.case.calls):
        await Runner.run(scripted.agent, "run the tools", run_config=scripted.run_config, max_turns=3)
    if len(scripted.model.calls) < 2:
        return
    request = scripted.model.calls[1].input
    items = request if isinstance(request, list) else []
    calls = [i for i in items if _get(i, "type") == "function_call"]
    if calls:
        turn.history = history_of(calls, turn)
    for item in items:
        if _get(item, "type") != "function_call_output":
            continue
        call_id = _get(item, "call_id")
        turn.report(None if call_id is MISSING else call_id, is_error=False, content=output_text(_get(item, "output")),
                    native=item)


adapter = Adapter(
    Implementation("OpenAI Agents SDK (function_tool + Runner)", "python", version("openai-agents"),
                   "https://github.com/openai/openai-agents-python"),
    Capabilities(
        cap=None, retryability=False, deadline=Deadline(configurable=True), keywords=KEYWORDS,
        call_forms=["structured", "arguments_text"], parallel=True, history=True,
        features=["offered-tools", "serial-calls"],
    ),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
