"""Adapter: Microsoft Agent Framework's function-invocation loop behind the conformance protocol.

Two implementations share this file (`run` scripts in agent-framework/ and
agent-framework-detailed-errors/): the default configuration, and
`function_invocation_configuration={"include_detailed_errors": True}` (pass
`--include-detailed-errors`), which puts the exception text into the result the model sees.

What is tested: an `Agent` (`agent_framework.Agent`, the documented entry point) over a scripted
chat client, offline. `agent-framework-core` ships no fake client, so the adapter writes the one
its docs show (`BaseChatClient` with `_inner_get_response`) and composes it with the framework's own
`FunctionInvocationLayer`, as the provider clients (`OpenAIChatClient`, ...) are composed. On its
first request the client answers with the case's calls as `function_call` contents in one
assistant message; the layer runs them (`_tools.py`: `_try_execute_function_call_groups` →
`_execute_single_function_call` → `_auto_invoke_function` → `FunctionTool.invoke`); the adapter
reads the NEXT request the client gets, which is what the model is shown, and reports its
`function_result` contents in order: `content` is the result's text items joined (the
channel-visible text; the `exception` field is host-internal by the framework's own docs and never
serialised to a provider), `is_error` is whether the framework set `exception` on the result.

Tools: `FunctionTool(func=..., input_model=<pydantic model>)`. The framework also accepts a JSON
schema dict as `input_model`, but its docs say a dict is "checked only for top-level required
fields, additionalProperties: false, and property enum and primitive type values ... Use a
Pydantic model when runtime validation matters", so the production form is the pydantic model,
written from the case's schema by the kit's `pydantic_schema.keyword_model`; what it cannot express
SKIPs. The handler receives the validated arguments as keyword arguments (`model_dump`), as a
user's function would; it is not told its call id.

Calls: structured calls become `Content.from_function_call(call_id, name, arguments=<mapping>)`,
arguments-as-text calls pass the provider's JSON text (`arguments=<str>`), which the framework
parses itself (`Content.parse_arguments`).

Handler errors: the framework has no exception meant for the model (every exception becomes
"Error: Function failed." unless `include_detailed_errors`); domain → `ToolExecutionException`
(its "a tool call failed at runtime" type), transport → `ConnectionError`, internal →
`RuntimeError`.

When the run raises, the model sees nothing: no results are reported and the kit writes the
exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

os.environ.setdefault("ENABLE_INSTRUMENTATION", "false")  # no OpenTelemetry spans or metrics
os.environ.setdefault("ENABLE_SENSITIVE_DATA", "false")

from agent_framework import (  # noqa: E402
    Agent, BaseChatClient, ChatResponse, Content, FunctionInvocationLayer, FunctionTool, Message,
)
from agent_framework.exceptions import ToolExecutionException  # noqa: E402
from harness_conformance_adapter import (  # noqa: E402
    Adapter, Call, Capabilities, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import KEYWORDS, keyword_handler, keyword_model  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

DETAILED_ERRORS = "--include-detailed-errors" in sys.argv[1:]


def tool_for(tool: Tool, turn: Turn) -> FunctionTool:
    model = keyword_model(tool, "the framework passes validated arguments to the function by field name")
    return FunctionTool(name=tool.name, description=tool.description, func=keyword_handler(tool, turn),
                        input_model=model)


def call_content(call: Call) -> Content:
    if call.form == "raw":
        raise Skip("the framework receives calls already split into call id, name and arguments; "
                   "a raw block is not expressible")
    arguments = call.arguments_text if call.form == "arguments_text" else call.get("input")
    return Content.from_function_call(call.get("id"), call.get("name"), arguments=arguments)


def result_text(result: Content) -> str:
    items = result.items or []
    return "".join(i.text or "" for i in items if i.type == "text")


@dataclass
class Scripted:
    """The agent, the calls its scripted client answers with, and what that client was sent next."""

    agent: Agent[Any]
    calls: list[Content]
    seen: dict[str, Any] = field(default_factory=dict)


class ScriptedChatClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A chat client that answers the first request with the case's calls, then with text."""

    def __init__(self, calls: list[Content], seen: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._calls = calls
        self._seen = seen

    async def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        if stream:
            raise NotImplementedError("the adapter runs the agent without streaming")
        if "first" not in self._seen:
            self._seen["first"] = True
            return ChatResponse(messages=[Message(role="assistant", contents=list(self._calls))])
        self._seen.setdefault("next_request", list(messages))
        return ChatResponse(messages=[Message(role="assistant", contents=["done"])])


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    calls = [call_content(c) for c in turn.case.calls]
    seen: dict[str, Any] = {}
    config = {"include_detailed_errors": True} if DETAILED_ERRORS else None
    client = ScriptedChatClient(calls, seen, function_invocation_configuration=config)
    return Scripted(Agent(client=client, tools=tools), calls, seen)


def history_of(contents: list[Content]) -> list[Any]:
    """The calls as the transcript's assistant message keeps them after the turn."""
    out = []
    for c in contents:
        if c.type == "function_call":
            key = "arguments_text" if isinstance(c.arguments, str) else "input"
            out.append({"id": c.call_id, "name": c.name, key: to_json(c.arguments)})
    return out


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    with turn.harness_may_raise(turn.case.calls) as attempt:
        await scripted.agent.run("run the tools")
    request = scripted.seen.get("next_request")
    if attempt.raised or request is None:
        turn.history = history_of(scripted.calls)
        return
    history: list[Any] = []
    for message in request:
        contents = list(message.contents or [])
        if message.role == "assistant" and any(c.type == "function_call" for c in contents):
            history = history_of(contents)
        for c in contents:
            if c.type == "function_result":
                turn.report(c.call_id, is_error=c.exception is not None, content=result_text(c),
                            native=to_json(c.to_dict(exclude={"raw_representation"})))
    turn.history = history


adapter = Adapter(
    Implementation(
        "Microsoft Agent Framework" + (" (include_detailed_errors=True)" if DETAILED_ERRORS else " (defaults)"),
        "python",
        f"agent-framework-core {version('agent-framework-core')}",
        "https://github.com/microsoft/agent-framework",
    ),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=True),
    Errors(domain=ToolExecutionException, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
