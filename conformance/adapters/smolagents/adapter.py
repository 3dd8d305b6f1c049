"""Adapter: smolagents' `ToolCallingAgent` behind the conformance protocol.

What is tested: a `ToolCallingAgent` — the agent type smolagents documents for models with native
tool calling — run offline with a scripted `Model` subclass. The model's first answer is one
`ChatMessage` holding the case's calls as `tool_calls` (one turn); smolagents validates and runs
them (`agents.py`: `process_tool_calls`, `execute_tool_call`; `tools.py`: `validate_tool_arguments`)
and writes the step to memory; its second answer is a `final_answer` call, which ends the run.
The adapter reads the messages smolagents sends the model with that second request — what the
model is shown — and reports the tool-response messages that follow the turn's `Calling tools:`
message.

What a result is here: smolagents does not answer each call. A step's outcome is ONE tool-response
message (`memory.py`, `ActionStep.to_messages`): on success `Observation:\\n` followed by every
call's output, joined by newlines, in call-id order; if any call raised, `Call id: <first id>\\n
Error:\\n<message>\\nNow let's retry: …` and no observation at all. Every model class smolagents
ships converts that message to a plain user message (`models.py`, `tool_role_conversions`), so the
model gets no tool_result block and no id. The adapter reports exactly that: one result per
tool-response message, `tool_use_id: null`, `is_error` true for the error message (smolagents'
own marking, `ActionStep.error`, which the text states), the text as sent. The protocol cannot say
"one answer for a whole batch"; docs/harnesses.md proposes how it could.

Tools: a `Tool` subclass with `inputs` — smolagents' documented explicit form — one input per
top-level property, `{"type": <JSON type or list of types>, "description": ..., "nullable":
true}` for a property that is not required. smolagents checks only each top-level value's JSON
type and that every non-nullable input is present, and refuses arguments that are not inputs, so
the keywords declared are `type` (top level and per property), `properties`, `required` and
`additionalProperties` (smolagents' inputs are always a closed object); a property schema with
anything else (`enum`, `minimum`, `items`, nested `properties`, …) SKIPs, as does an optional
property whose type does not admit null (smolagents' only way to make an input optional,
`nullable`, also admits null).

Calls: structured calls carry their input as `function.arguments`; calls with arguments as text
carry the text, which smolagents parses itself (`parse_json_if_needed`: text that does not parse
is passed on as a string).

Handler errors: smolagents has no exception reserved for messages meant for the model — it shows
every exception from a tool as `Error executing tool …: <Type>: <message>` — so domain →
`ValueError` (what its docs' tools raise for bad input), transport → `ConnectionError`, internal →
`RuntimeError`.

No cap: `ToolCallingAgent` passes observations whole (`truncate_content`, 20,000 chars head+tail,
is applied only to `CodeAgent`'s execution logs; see docs/harnesses.md for why CodeAgent is not a
column). No deadline, no codes, no history.

Offline: the scripted model makes no request; smolagents' telemetry is opt-in (OpenTelemetry
instrumentation that is not installed) and its logger is silenced (`verbosity_level=OFF`).

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import keyword
import logging
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import Adapter, Call, Capabilities, Errors, Implementation, Skip, Tool, Turn
from smolagents import Model, Tool as SmolTool, ToolCallingAgent
from smolagents.memory import ActionStep
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole
from smolagents.monitoring import LogLevel
from smolagents.tools import AUTHORIZED_TYPES

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

KEYWORDS = ["type", "properties", "required", "additionalProperties", "description", "title"]
PROPERTY_KEYS = {"type", "description", "title"}
"""What smolagents' `inputs` can state about one argument (it checks the JSON type only)."""


def inputs_for(tool: Tool) -> dict[str, dict[str, Any]]:
    """The tool's `inputs`, or Skip where smolagents would not enforce the schema."""
    schema, name = tool.input_schema, tool.name
    if schema.get("type") != "object":
        raise Skip(f"tool {name!r}: smolagents' inputs are always an object of named arguments")
    extra = set(schema) - {"type", "properties", "required", "additionalProperties", "description", "title"}
    if extra:
        raise Skip(f"tool {name!r}: smolagents' inputs cannot state top-level {sorted(extra)}")
    if schema.get("additionalProperties", False) is not False:
        raise Skip(f"tool {name!r}: smolagents refuses every argument that is not an input; "
                   "a schema-valued or true additionalProperties cannot be stated")
    required = schema.get("required", [])
    properties = schema.get("properties", {})
    if set(required) - set(properties):
        raise Skip(f"tool {name!r}: required names {sorted(set(required) - set(properties))} without properties")
    inputs: dict[str, dict[str, Any]] = {}
    for key, sub in properties.items():
        if not key.isidentifier() or keyword.iskeyword(key):
            raise Skip(f"tool {name!r}: property {key!r} is not usable as a Python parameter name")
        if not isinstance(sub, Mapping) or "type" not in sub:
            raise Skip(f"tool {name!r}: property {key!r} has no `type`; every smolagents input needs one")
        lost = sorted(set(sub) - PROPERTY_KEYS)
        if lost:
            raise Skip(f"tool {name!r}: smolagents checks only an argument's JSON type; {lost} at /{key} "
                       "would not be enforced")
        types = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
        if any(t not in AUTHORIZED_TYPES for t in types):
            raise Skip(f"tool {name!r}: type {sub['type']!r} at /{key} is not a smolagents type")
        spec: dict[str, Any] = {"type": sub["type"], "description": sub.get("description", "")}
        if key not in required:
            if "null" not in types:
                raise Skip(f"tool {name!r}: optional property {key!r}: smolagents' `nullable` makes an input "
                           "optional but also admits null, which the schema refuses")
            spec["nullable"] = True
        inputs[key] = spec
    return inputs


def smol_tool(tool: Tool, turn: Turn) -> SmolTool:
    if not tool.name.isidentifier() or keyword.iskeyword(tool.name):
        raise Skip(f"tool {tool.name!r}: smolagents tool names must be Python identifiers")
    inputs = inputs_for(tool)
    handle = turn.handler(tool)

    def forward(self: Any, **kwargs: Any) -> Any:
        return handle(kwargs)

    forward.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None if "nullable" in v
                             else inspect.Parameter.empty) for k, v in inputs.items()])
    cls = type(f"CaseTool_{tool.name}", (SmolTool,), {
        "name": tool.name, "description": tool.description, "inputs": inputs, "output_type": "any",
        "forward": forward, "skip_forward_signature_validation": True,
    })
    made: SmolTool = cls()
    return made


def tool_call(call: Call) -> ChatMessageToolCall:
    if call.form == "raw":
        raise Skip("smolagents receives calls already split into id, name and arguments; a raw block is not expressible")
    arguments = call.arguments_text if call.form == "arguments_text" else call.get("input")
    return ChatMessageToolCall(id=call.get("id"), type="function",
                               function=ChatMessageToolCallFunction(name=call.get("name"), arguments=arguments))


class ScriptedModel(Model):
    """Answers with the case's calls, then with `final_answer`; keeps every request it was sent."""

    def __init__(self, calls: list[ChatMessageToolCall]) -> None:
        super().__init__(model_id="scripted")
        self.calls = calls
        self.sent: list[list[ChatMessage]] = []

    def generate(self, messages: list[ChatMessage], stop_sequences: list[str] | None = None,
                 response_format: Any = None, tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        self.sent.append(list(messages))
        if len(self.sent) == 1:
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=self.calls)
        done = ChatMessageToolCall(id="final", type="function",
                                   function=ChatMessageToolCallFunction(name="final_answer", arguments={"answer": "done"}))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[done])


@dataclass
class Scripted:
    tools: list[SmolTool]
    model: ScriptedModel


def build(turn: Turn) -> Scripted:
    tools = [smol_tool(t, turn) for t in turn.case.tools]
    return Scripted(tools, ScriptedModel(calls=[tool_call(c) for c in turn.case.calls]))


def text_of(message: ChatMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def run_turn(scripted: Scripted, turn: Turn) -> None:
    # One tool thread (`max_tool_threads=1`, a documented setting): with the default pool, which
    # error smolagents reports for a batch depends on thread timing, so a column would not
    # reproduce (correlation/every-failure-kind-in-one-batch leaked an internal error in one run of
    # two). The calls still run through the same parallel-call path, in call order.
    agent = ToolCallingAgent(tools=scripted.tools, model=scripted.model, max_steps=2,
                             verbosity_level=LogLevel.OFF, max_tool_threads=1)
    with turn.harness_may_raise(turn.case.calls) as running:
        agent.run("run the tools")
    if running.raised or len(scripted.model.sent) < 2:
        return
    step = next((s for s in agent.memory.steps if isinstance(s, ActionStep)), None)
    failed = step is not None and step.error is not None
    # The turn's messages are the ones the second request adds to the first (system prompt, task).
    for message in scripted.model.sent[1][len(scripted.model.sent[0]):]:
        if message.role == MessageRole.TOOL_RESPONSE:
            text = text_of(message)
            turn.report(None, is_error=failed and not text.startswith("Observation:"), content=text,
                        native={"role": str(message.role.value), "content": text})


adapter = Adapter(
    Implementation("smolagents ToolCallingAgent", "python", version("smolagents"),
                   "https://github.com/huggingface/smolagents"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=False),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
