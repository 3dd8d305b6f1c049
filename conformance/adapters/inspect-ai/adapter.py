"""Adapter: Inspect AI's tool loop behind the conformance protocol.

What is tested: `Model.generate_loop` — the loop Inspect's agents run (generate, then
`execute_tools` on the assistant message's tool calls, then generate again) — with the built-in
`mockllm/model` provider scripted through `custom_outputs`: its first output is one assistant
message holding the case's calls (one turn); every later one is plain text, which ends the loop.
The adapter reads the `ChatMessageTool`s the loop appended — what the model is sent next — and
reports one result per message, in order, rendered the way Inspect's Anthropic provider renders a
tool message (`model/_providers/anthropic.py`): an error shows `error.message` (else the text,
else "error"), with `is_error`; a success shows the text ("(no content)" when empty).

Tools: `ToolDef(fn, name=..., description=..., parameters=ToolParams(...))` with
`fn(**kwargs: Any)` — Inspect's documented way to give a tool an explicit JSON Schema (its
`ToolParams`/`JSONSchema` models) instead of one parsed from a signature; a `**kwargs: Any`
function receives the arguments as validated (`model/_call_tools.py`, `tool_params`). Inspect
validates the arguments against that schema with `jsonschema`'s Draft7Validator
(`validate_tool_input`) before calling. Its `JSONSchema` model has fields for `type`, `format`,
`description`, `default`, `enum`, `items` (one schema), `properties`, `additionalProperties`,
`anyOf`, `required`, `pattern`, `minLength`, `maxLength`, `minimum`, `maximum`, `examples` and
silently drops anything else, so those are the keywords declared; a schema using another keyword
that would change validation SKIPs (annotations such as `title` are dropped harmlessly). A tool's
JSON output is returned as its JSON text (`json.dumps`), since Inspect's `ToolResult` holds
text, numbers, booleans and content blocks, not objects.

Calls: structured calls become `ToolCall(id, function, arguments)`; calls with arguments as text go
through `parse_tool_call(id, function, text, tools)`, as Inspect's OpenAI-style providers do (a
parse failure is recorded on the call and answered as a `parsing` error). A call Inspect's
`ToolCall` cannot hold (an id or name that is not a string, arguments that are not an object)
cannot be put in the turn at all: the model gets no result, and the kit writes the error.

Handler errors, in Inspect's idiom: domain → `ToolError` (inspect_ai.tool: "an error the model
should see"), transport → `ConnectionError`, internal → `RuntimeError`. Inspect treats any
exception it does not map (`tool_call_error`) as a failure of the whole sample: `generate_loop`
raises and the model gets no result for any call of the turn.

Cap: `GenerateConfig(max_tool_output=N)` (default 16 KiB, `truncate_tool_output`): output over N
UTF-8 bytes keeps N bytes — half from the head and half from the tail (`_util/text.py`,
`truncate_str` / `truncate_bytes`) — inside a fixed wrapper ("The output of your call to NAME was
too long to be displayed. Here is a truncated version: <START_TOOL_OUTPUT> … <END_TOOL_OUTPUT>"),
with no count of what was cut. Declared as observed: bytes, head+tail, configurable; a case asking
for a limit in chars or a head-only cut SKIPs (neither can be set).

Codes: every error is typed (`ToolCallError.type`): `parsing` for invalid arguments, an unknown
tool and unparseable arguments text; `unknown` for a `ToolError`; `limit` for an output limit.
Deadlines: Inspect has none for plain tools (its timeouts are the sandbox's), so none is declared.

Offline: mockllm makes no request; each scripted output carries its token usage, so mockllm does
not count tokens (its tokenizer would download an encoding); telemetry (an opt-in hook named by
`INSPECT_TELEMETRY`) stays unset and the display is off.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

# Offline and quiet: no display; telemetry is an opt-in hook named by INSPECT_TELEMETRY (a
# package to import), so it stays unset.
os.environ.setdefault("INSPECT_DISPLAY", "none")
os.environ.setdefault("INSPECT_LOG_LEVEL", "error")
os.environ.pop("INSPECT_TELEMETRY", None)

from harness_conformance_adapter import (  # noqa: E402
    Adapter, Call, Cap, Capabilities, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from inspect_ai.model import (  # noqa: E402
    ChatCompletionChoice, ChatMessageAssistant, ChatMessageTool, GenerateConfig, ModelOutput, ModelUsage,
    get_model,
)
from inspect_ai.model._call_tools import parse_tool_call  # noqa: E402
from inspect_ai.tool import ToolCall, ToolDef, ToolError, ToolInfo, ToolParams  # noqa: E402
from inspect_ai.util import JSONSchema  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

LIMIT = 16 * 1024
"""Inspect's default max_tool_output (bytes), when neither the config nor the tool sets one."""
NO_CONTENT = "(no content)"
"""What Inspect's Anthropic provider sends for an empty successful result (_util/constants.py)."""

KEYWORDS = ["type", "format", "description", "default", "enum", "items", "properties",
            "additionalProperties", "anyOf", "required", "pattern", "minLength", "maxLength",
            "minimum", "maximum", "examples"]
"""The fields of Inspect's JSONSchema model (util/_json.py); it drops every other keyword."""
ANNOTATIONS = {"$schema", "$id", "$comment", "title", "deprecated", "readOnly", "writeOnly"}
"""Keywords that do not change validation: dropping them loses nothing."""


def json_schema(schema: Any, path: str) -> JSONSchema:
    """The case's schema as Inspect's `JSONSchema` model, or Skip where it would lose a keyword."""
    if not isinstance(schema, Mapping):
        raise Skip(f"the schema at {path or '/'} is a boolean; Inspect's JSONSchema model has no form for it")
    lost = sorted(set(schema) - set(KEYWORDS) - ANNOTATIONS)
    if lost:
        raise Skip(f"Inspect's JSONSchema model has no field for {lost} (at {path or '/'}): it would drop them")
    fields: dict[str, Any] = {k: v for k, v in schema.items() if k in KEYWORDS}
    if "items" in schema:
        fields["items"] = json_schema(schema["items"], f"{path}/items")
    if "properties" in schema:
        fields["properties"] = {k: json_schema(v, f"{path}/properties/{k}") for k, v in schema["properties"].items()}
    if isinstance(schema.get("additionalProperties"), Mapping):
        fields["additionalProperties"] = json_schema(schema["additionalProperties"], f"{path}/additionalProperties")
    if "anyOf" in schema:
        fields["anyOf"] = [json_schema(s, f"{path}/anyOf/{i}") for i, s in enumerate(schema["anyOf"])]
    if any(v is None for v in fields.values()):
        raise Skip(f"a keyword at {path or '/'} is null; Inspect's JSONSchema model reads null as absent")
    try:
        return JSONSchema(**fields)
    except Exception as exc:  # a value the model's types refuse (e.g. an unknown type name)
        raise Skip(f"Inspect's JSONSchema model refuses the schema at {path or '/'}: {type(exc).__name__}") from None


def tool_params(schema: Mapping[str, Any], name: str) -> ToolParams:
    """The tool's parameters as Inspect's ToolParams (always an object at the top)."""
    if schema.get("type") != "object":
        raise Skip(f"tool {name!r}: Inspect's ToolParams is always `type: object`")
    top = json_schema(schema, "")
    extra = set(schema) - {"type", "properties", "required", "additionalProperties"} - ANNOTATIONS - {"description"}
    if extra:
        raise Skip(f"tool {name!r}: Inspect's ToolParams has no top-level {sorted(extra)}")
    return ToolParams(
        properties=top.properties or {},
        required=list(schema.get("required", [])),
        # ToolParams defaults to closed (False); the schema's own word, absent = open, is kept.
        additionalProperties=top.additionalProperties if "additionalProperties" in schema else True,
    )


def tool_def(tool: Tool, turn: Turn) -> ToolDef:
    params = tool_params(tool.input_schema, tool.name)
    handle = turn.async_handler(tool)

    async def execute(**kwargs: Any) -> Any:
        return await handle(kwargs)

    return ToolDef(execute, name=tool.name, description=tool.description, parameters=params)


def present(value: Any, kind: str) -> Any:
    """A returned value as an Inspect tool returns it: JSON values as their JSON text."""
    if kind in ("json", "echo_args"):
        return json.dumps(value, ensure_ascii=False)
    return value


def tool_call(call: Call, tools: list[ToolInfo]) -> ToolCall:
    if call.form == "raw":
        raise Skip("Inspect receives calls already split into id, function and arguments; a raw block is not expressible")
    fields: dict[str, Any] = {k: call.raw[k] for k in ("id", "name") if k in call.raw}
    if call.form == "arguments_text":
        return parse_tool_call(fields.get("id"), fields.get("name"), call.arguments_text, tools)  # type: ignore[arg-type]
    if "input" in call.raw:
        fields["arguments"] = call.raw["input"]
    if "name" in fields:
        fields["function"] = fields.pop("name")
    return ToolCall(**fields)


@dataclass
class Scripted:
    tools: list[ToolDef]
    config: GenerateConfig


def build(turn: Turn) -> Scripted:
    config = turn.case.config
    if config.cap_unit == "chars":
        raise Skip("Inspect's max_tool_output counts UTF-8 bytes; a limit in chars cannot be set")
    if config.cap_strategy == "head_only":
        raise Skip("Inspect always keeps head and tail; a head-only cut cannot be set")
    tools = [tool_def(t, turn) for t in turn.case.tools]
    return Scripted(tools, GenerateConfig(max_tool_output=config.cap_limit or LIMIT))


def rendered(message: ChatMessageTool) -> tuple[bool, str]:
    """(is_error, text) as Inspect's Anthropic provider sends a tool message."""
    if message.error is not None:
        return True, message.error.message or message.text or "error"
    return False, message.text or NO_CONTENT


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    infos = [ToolInfo(name=t.name, description=t.description, parameters=t.parameters) for t in scripted.tools]
    with turn.harness_may_raise(turn.case.calls) as building:  # Inspect's ToolCall may refuse a call
        calls = [tool_call(c, infos) for c in turn.case.calls]
    if building.raised:
        return
    turn_output = ModelOutput(model="mockllm/model", choices=[ChatCompletionChoice(
        message=ChatMessageAssistant(content="", tool_calls=calls, model="mockllm/model"), stop_reason="tool_calls",
    )])
    outputs = [turn_output] + [ModelOutput.from_content("mockllm/model", "done") for _ in range(3)]
    for output in outputs:
        # With usage given, mockllm counts no tokens (its tokenizer would download an encoding).
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    with turn.harness_may_raise(turn.case.calls) as running:
        messages, _ = await model.generate_loop("run the tools", tools=scripted.tools, config=scripted.config)
    if running.raised:
        return
    for message in messages:
        if isinstance(message, ChatMessageTool):
            is_error, text = rendered(message)
            turn.report(message.tool_call_id, is_error=is_error, content=text,
                        code=message.error.type if message.error is not None else None,
                        native=to_json(json.loads(message.model_dump_json())))


adapter = Adapter(
    Implementation("inspect-ai (generate_loop + mockllm)", "python", version("inspect-ai"),
                   "https://inspect.aisi.org.uk/"),
    Capabilities(
        cap=Cap(unit="bytes", limit=LIMIT, strategies=["head_tail"], configurable=True),
        codes={"invalid_arguments": "parsing", "unknown_tool": "parsing", "malformed_call": "parsing",
               "tool_refused": "unknown"},
        retryability=False, keywords=[k for k in KEYWORDS if k != "format"],
        call_forms=["structured", "arguments_text"], parallel=True, history=False,
    ),
    Errors(domain=ToolError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
    present=present,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
