"""Adapter: Google's Agent Development Kit (`google-adk`) behind the conformance protocol.

What is tested: an `LlmAgent` run by ADK's own `Runner` over an `InMemorySessionService`, whose
model is a scripted `BaseLlm` (offline, no network). On its first request the model answers with
the case's calls as `function_call` parts of one `LlmResponse` (one model turn); ADK's flow
(`flows/llm_flows/tools/_functions.py` `handle_function_calls_async` → `_batch_executor.py` →
`_caller.py`) looks each tool up, runs it and builds one `function_response` part per call; the
adapter reads the NEXT `LlmRequest` the model is sent, which is exactly what the model would see,
and reports one result per `function_response` part in it, in order.

Reading a result: the Gemini API has no error flag. Its convention (and ADK's own: its unknown-tool,
missing-argument and validation answers are `{"error": ...}`, and `_caller.py` tests
`'error' not in function_result`) is a response object holding `error` for a failure; the adapter
reads a response whose only key is `error` as `is_error`, and shows that key's text. A response
whose only key is `result` (how ADK wraps a non-dict return) or `output` shows that value's text;
anything else is the response object as compact JSON — the same reading as the Gemini CLI column
(conformance/wire/dialects.py).

Tools: `FunctionTool(fn)` over a Python function whose signature is written from the case's schema
by the kit's `pydantic_schema.parameters` — ADK builds tools from typed Python functions (its docs'
way; `_automatic_function_calling_util.py`), so a signature is the idiomatic form. A signature
cannot close the argument object (`additionalProperties: false`) or hold a property that is not a
Python identifier; those cases SKIP. The function also takes ADK's `tool_context`, so invocations
carry the call id ADK gives the tool.

Two columns share this file: ADK's defaults (`google-adk/run`), and `--arg-validation`
(`google-adk-arg-validation/run`) with ADK's experimental `FUNCTION_TOOL_ARG_VALIDATION` feature on
(`function_tool.py` `_preprocess_args_with_validation`: pydantic `TypeAdapter` per parameter, errors
returned to the model). By default ADK converts dict arguments to pydantic models for model-typed
parameters and checks that mandatory parameters are present; nothing else is validated.

Handler errors, in ADK's idiom: domain → the tool returns `{"error": message}` (ADK's docs have tools
report failures to the model in their returned dict, and `error` is the key ADK and the Gemini API
read as a failure), transport → `ConnectionError`, internal → `RuntimeError`. ADK lets a tool's
exception propagate out of `Runner.run_async` (unless an `on_tool_error` callback answers it), so
the run is over and the model sees nothing: no results are reported and the kit writes the
exception to stderr.

Calls: the Gemini API delivers `function_call.args` as an object (a protobuf `Struct`) and `id`,
`name` as strings; a call whose input, id or name has another JSON type cannot reach ADK, so it
SKIPs. An absent `input` and `"input": null` are the same on that wire (no `args`).

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import signal
import sys
import warnings
from importlib.metadata import version
from typing import Any, AsyncGenerator

os.environ.setdefault("OTEL_SDK_DISABLED", "true")  # no telemetry pipeline: nothing is exported anyway
ARG_VALIDATION = "--arg-validation" in sys.argv[1:]

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.features import FeatureName, override_feature_enabled  # noqa: E402
from google.adk.models import BaseLlm, LlmRequest, LlmResponse  # noqa: E402
from google.adk.runners import Runner  # noqa: E402
from google.adk.sessions import InMemorySessionService  # noqa: E402
from google.adk.tools import FunctionTool, ToolContext  # noqa: E402
from google.genai import types  # noqa: E402
from harness_conformance_adapter import (  # noqa: E402
    Adapter, Call, Capabilities, Errors, Implementation, ReturnInstead, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import (  # noqa: E402
    KEYWORDS, Untranslatable, parameters, present_arguments, skip_for,
)

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
override_feature_enabled(FeatureName.FUNCTION_TOOL_ARG_VALIDATION, ARG_VALIDATION)


def function_for(tool: Tool, turn: Turn) -> FunctionTool:
    """A Python function with the case's parameters, as an ADK user would write it."""
    try:
        params = parameters(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    if any(name == "tool_context" for name, _, _ in params):
        raise Skip(f"tool {tool.name!r}: ADK reserves the parameter name 'tool_context'")
    handle = turn.async_handler(tool)

    async def fn(tool_context: ToolContext, **kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs), tool_use_id=tool_context.function_call_id)

    signature = [inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY, annotation=ToolContext)]
    signature += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=ann, default=default)
                  for name, ann, default in params]
    fn.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    fn.__annotations__ = {p.name: p.annotation for p in signature}
    fn.__name__ = fn.__qualname__ = tool.name
    fn.__doc__ = tool.description
    return FunctionTool(fn)


def function_call(call: Call) -> types.Part:
    """One call as the Gemini API delivers it: a `function_call` part."""
    if call.form != "structured":
        raise Skip("the Gemini API delivers function calls with parsed `args`; a call as text is not expressible")
    name, call_id, args = call.get("name"), call.get("id"), call.get("input")
    if name is not None and not isinstance(name, str):
        raise Skip(f"the Gemini API's function_call.name is a string; a {type(name).__name__} name cannot reach ADK")
    if call_id is not None and not isinstance(call_id, str):
        raise Skip(f"the Gemini API's function_call.id is a string; a {type(call_id).__name__} id cannot reach ADK")
    if args is not None and not isinstance(args, dict):
        raise Skip(f"the Gemini API's function_call.args is an object; a {type(args).__name__} cannot reach ADK")
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))


class ScriptedLlm(BaseLlm):
    """Answers the first request with the case's calls, records the next request, then stops."""

    model: str = "scripted"
    calls: list[types.Part] = []
    requests: list[LlmRequest] = []

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request.model_copy(deep=True))
        if len(self.requests) == 1:
            yield LlmResponse(content=types.Content(role="model", parts=list(self.calls)))
        else:
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part.from_text(text="done")]))


def build(turn: Turn) -> Runner:
    tools = [function_for(t, turn) for t in turn.case.tools]
    model = ScriptedLlm(calls=[function_call(c) for c in turn.case.calls], requests=[])
    agent = LlmAgent(name="agent", model=model, instruction="Use the tools.", tools=tools)
    return Runner(app_name="conformance", agent=agent, session_service=InMemorySessionService())


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(to_json(value), ensure_ascii=False, separators=(",", ":"))


def report(response: types.FunctionResponse, turn: Turn) -> None:
    """One `function_response` as the model reads it (see the module doc)."""
    value: Any = response.response
    is_error = False
    if isinstance(value, dict) and set(value) == {"error"}:
        is_error, value = True, value["error"]
    elif isinstance(value, dict) and len(value) == 1 and set(value) <= {"result", "output"}:
        value = next(iter(value.values()))
    turn.report(response.id, is_error=is_error, content=text_of(value),
                native=response.model_dump(mode="json", exclude_none=True))


def history_of(parts: list[types.Part]) -> list[Any]:
    return [{"id": p.function_call.id, "name": p.function_call.name, "input": to_json(p.function_call.args)}
            for p in parts if p.function_call is not None]


HANG_S = 40


class HarnessHung(Exception):
    """ADK did not finish the turn: the model would get nothing (see `bounded`)."""


def bounded(seconds: int) -> Any:
    """An alarm that interrupts a turn ADK never finishes.

    Observed: a batch with a nameless call sends ADK's event rearranger
    (`flows/llm_flows/tools/_rearranger.py` `_find_owning_call_event_index`) into an endless loop,
    so the turn never returns and the model never gets an answer. The alarm raises `HarnessHung`
    inside that loop, so the case ends as "no result" (what the model sees) rather than as a runner
    timeout blamed on the adapter. It decides nothing the harness would decide.
    """
    def ring(signum: int, frame: Any) -> None:
        raise HarnessHung(f"ADK did not finish the turn within {seconds} s")

    signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)


async def run_turn(runner: Runner, turn: Turn) -> None:
    model = runner.agent.model
    assert isinstance(model, ScriptedLlm)
    session = await runner.session_service.create_session(app_name="conformance", user_id="user")
    message = types.Content(role="user", parts=[types.Part.from_text(text="Run the tools.")])
    with turn.harness_may_raise(turn.case.calls) as running:
        bounded(HANG_S)
        try:
            async for _ in runner.run_async(user_id="user", session_id=session.id, new_message=message):
                pass
        finally:
            signal.alarm(0)
    if running.raised or len(model.requests) < 2:
        turn.history = history_of(model.calls)
        return
    # What the model is sent on its next turn: the contents after its own function-call turn.
    contents = model.requests[1].contents
    calls_at = max((i for i, c in enumerate(contents) if any(p.function_call for p in c.parts or [])), default=-1)
    for content in contents[calls_at + 1:]:
        for part in content.parts or []:
            if part.function_response is not None:
                report(part.function_response, turn)
    turn.history = history_of(contents[calls_at].parts or []) if calls_at >= 0 else []


adapter = Adapter(
    Implementation(
        "google-adk (LlmAgent + Runner" + (", FUNCTION_TOOL_ARG_VALIDATION on)" if ARG_VALIDATION else ")"),
        "python", version("google-adk"), "https://github.com/google/adk-python",
    ),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured"],
                 parallel=True, history=True),
    Errors(domain=lambda m: ReturnInstead({"error": m}), transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
