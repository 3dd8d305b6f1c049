"""Adapter: Semantic Kernel's auto function invocation behind the conformance protocol.

What is tested: the auto-invoke loop of `ChatCompletionClientBase.get_chat_message_contents`
(`connectors/ai/chat_completion_client_base.py`) — the loop every SK agent and chat service runs
with `FunctionChoiceBehavior.Auto()`, the documented way to let the model call functions — over a
scripted chat completion client, offline. The client subclasses `ChatCompletionClientBase` with
`SUPPORTS_FUNCTION_CALLING = True`; its first answer is one assistant `ChatMessageContent` holding
the case's calls as `FunctionCallContent`s; SK runs them concurrently through
`Kernel.invoke_function_call` (`kernel.py`: name lookup, the missing/unexpected-argument check,
`KernelFunctionFromMethod.gather_function_parameters` converting each argument to its annotated
type, the function, and `_inner_auto_function_invoke_handler` turning an exception into text) and
appends one tool message per call to the chat history. The adapter reads the history the client is
sent NEXT — what the model is shown — and reports each tool message as SK serialises it for a
provider (`ChatMessageContent.to_dict()`: `tool_call_id`, `content` = `str(result)`). SK results
have no error flag, so `is_error` is always false; that is SK's doing.

Tools: one plugin, `cases`, holding one `@kernel_function` per tool, whose Python signature is
what a user would write (SK builds its parameter metadata from the signature; a description is an
`Annotated[T, "description"]` string, SK's documented form). The types come from the kit's
`pydantic_schema.parameters` (nested objects are pydantic models, which SK validates with
`model_validate`); a top-level `enum` is a Python `Enum` of its values (SK's documented enum form: its
schema builder advertises it and its argument parsing converts to it; a `typing.Literal` it
neither advertises nor checks). What SK's signature idiom cannot state SKIPs: a constraint on a top-level
parameter (`minimum`, `maxLength`, `minItems`, ... — SK neither advertises nor enforces it), a
schema that is not an object of named properties. SK refuses every argument the signature does not
name, so a closed schema (`additionalProperties: false`) is what every SK function is; an open one
is registered the same way and SK's refusal of extra arguments is judged.

Names: SK offers plugin functions to the model as `<plugin>-<function>` (the OpenAI connector's
separator), so the scripted model calls `cases-<name>`, an unknown name included (as a model's
misspelling would be). A tool name SK rejects (it allows `[A-Za-z0-9_]` only), or a parameter name (`[A-Za-z0-9_-]`),
SKIPs.

Handler errors: SK has no exception meant for the model — every exception becomes "An error
occurred while invoking the function …: <text>"; domain → `FunctionExecutionException` (SK's
"function failed" type), transport → `ConnectionError`, internal → `RuntimeError`.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import warnings
from importlib.metadata import version
from enum import Enum
from typing import Annotated, Any, ClassVar, Literal, get_args, get_origin

os.environ.setdefault("SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS", "false")
os.environ.setdefault("SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE", "false")
os.environ.setdefault("AZURE_TELEMETRY_DISABLED", "true")

from harness_conformance_adapter import (  # noqa: E402
    Adapter, Call, Capabilities, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import (  # noqa: E402
    KEYWORDS, Untranslatable, parameters, present_arguments, skip_for,
)
from pydantic.fields import FieldInfo  # noqa: E402
from semantic_kernel import Kernel  # noqa: E402
from semantic_kernel.connectors.ai.chat_completion_client_base import ChatCompletionClientBase  # noqa: E402
from semantic_kernel.connectors.ai.function_choice_behavior import FunctionChoiceBehavior  # noqa: E402
from semantic_kernel.connectors.ai.prompt_execution_settings import PromptExecutionSettings  # noqa: E402
from semantic_kernel.contents import AuthorRole, ChatHistory, ChatMessageContent, FunctionCallContent  # noqa: E402
from semantic_kernel.exceptions import FunctionExecutionException  # noqa: E402
from semantic_kernel.functions import kernel_function  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

PLUGIN = "cases"
SEPARATOR = "-"  # how SK's connectors spell a plugin function's name to the model
NAME = re.compile(r"^[0-9A-Za-z_]+$")  # SK's function-name rule (KernelFunctionMetadata)
PARAMETER = re.compile(r"^[0-9A-Za-z_-]+$")  # SK's parameter-name rule (KernelParameterMetadata)


def sk_enum(ann: Any, tool: str, name: str) -> Any:
    """SK's form of a top-level enum: a Python `Enum` (SK's schema builder and argument parsing know
    `Enum` classes; a `typing.Literal` is neither advertised nor checked by SK)."""
    if get_origin(ann) is not Literal:
        return ann
    values = get_args(ann)
    for kind in (str, int):
        if all(type(v) is kind for v in values):
            return Enum(f"{tool}_{name}", [(f"v{i}", v) for i, v in enumerate(values)], type=kind)
    raise Skip(f"tool {tool!r}: parameter {name!r} is an enum of {sorted({type(v).__name__ for v in values})}; "
               "an SK parameter's Enum holds strings or integers")


def sk_annotation(ann: Any, tool: str, name: str) -> Any:
    """SK's parameter form of the kit's annotation: the description as an `Annotated` string."""
    if get_origin(ann) is not Annotated:
        return sk_enum(ann, tool, name)
    base, *meta = get_args(ann)
    description = None
    for m in meta:
        described = isinstance(m, FieldInfo) and m.description is not None and not m.metadata
        if not described:
            raise Skip(f"tool {tool!r}: parameter {name!r} has a constraint ({m!r}); an SK function signature "
                       "has no place for it (SK neither advertises nor enforces it)")
        description = m.description
    if get_origin(base) is Annotated:
        sk_annotation(base, tool, name)  # a constraint under the description
    base = sk_enum(base, tool, name)
    return Annotated[base, description] if description is not None else base


def function_for(tool: Tool, turn: Turn) -> Any:
    if not NAME.match(tool.name):
        raise Skip(f"tool {tool.name!r}: SK function names allow only letters, digits and underscores")
    schema = tool.input_schema
    if isinstance(schema, dict) and schema.get("additionalProperties") is False:
        # Every SK function is closed (invoke_function_call refuses unexpected arguments), so the
        # closed schema is the signature itself; the kit's translator refuses the keyword because a
        # plain Python signature does not close anything.
        schema = {k: v for k, v in schema.items() if k != "additionalProperties"}
    try:
        params = parameters(schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    for name, _, _ in params:
        if not PARAMETER.match(name):
            raise Skip(f"tool {tool.name!r}: SK parameter names allow only ASCII letters, digits, '_' and '-' "
                       f"({name!r})")
    handle = turn.async_handler(tool)

    async def fn(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    fn.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=sk_annotation(ann, tool.name, name),
                          default=default)
        for name, ann, default in params
    ])
    return kernel_function(fn, name=tool.name, description=tool.description)


def expressible(call: Call) -> None:
    if call.form == "raw":
        raise Skip("SK receives calls already split into id, name and arguments; a raw block is not expressible")


def call_content(call: Call, index: int) -> FunctionCallContent:
    arguments = call.arguments_text if call.form == "arguments_text" else call.get("input")
    name = call.get("name")
    full = f"{PLUGIN}{SEPARATOR}{name}" if isinstance(name, str) else name
    return FunctionCallContent(id=call.get("id"), name=full, arguments=arguments, index=index)


class ScriptedChatCompletion(ChatCompletionClientBase):
    """A chat completion service that answers the first request with the case's calls, then with text."""

    SUPPORTS_FUNCTION_CALLING: ClassVar[bool] = True
    calls: list[Any] = []
    seen: dict[str, Any] = {}

    async def _inner_get_chat_message_contents(self, chat_history: ChatHistory, settings: Any) -> list[Any]:
        if "first" not in self.seen:
            self.seen["first"] = True
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, items=list(self.calls))]
        self.seen.setdefault("next_request", list(chat_history.messages))
        return [ChatMessageContent(role=AuthorRole.ASSISTANT, content="done")]


def build(turn: Turn) -> tuple[Kernel, ScriptedChatCompletion]:
    kernel = Kernel()
    kernel.add_functions(PLUGIN, [function_for(t, turn) for t in turn.case.tools])
    for call in turn.case.calls:
        expressible(call)
    service = ScriptedChatCompletion(ai_model_id="scripted", service_id="scripted", calls=[], seen={})
    kernel.add_service(service)
    return kernel, service


def history_of(items: list[Any]) -> list[Any]:
    """The calls as the chat history keeps them after the turn, named as the case names them (the
    `cases-` prefix is the adapter's spelling of the model's name, removed again here)."""
    out = []
    for c in items:
        if isinstance(c, FunctionCallContent):
            name = c.name[len(PLUGIN + SEPARATOR):] if isinstance(c.name, str) and c.name.startswith(PLUGIN + SEPARATOR) else c.name
            key = "arguments_text" if isinstance(c.arguments, str) else "input"
            out.append({"id": c.id, "name": name, key: to_json(c.arguments)})
    return out


async def run_turn(built: tuple[Kernel, ScriptedChatCompletion], turn: Turn) -> None:
    kernel, service = built
    settings = PromptExecutionSettings(function_choice_behavior=FunctionChoiceBehavior.Auto())
    history = ChatHistory()
    history.add_user_message("run the tools")
    # SK's own content type refuses some calls (arguments that are neither an object nor text, a
    # name that is not a string): a connector building the assistant message would raise there.
    with turn.harness_may_raise(turn.case.calls) as building:
        service.calls = [call_content(c, i) for i, c in enumerate(turn.case.calls)]
    if building.raised:
        return
    with turn.harness_may_raise(turn.case.calls):
        await service.get_chat_message_contents(history, settings, kernel=kernel)
    turn.history = history_of(service.calls)  # what the caller holds if the loop raises
    for message in service.seen.get("next_request") or []:
        if message.role == AuthorRole.ASSISTANT and any(isinstance(i, FunctionCallContent) for i in message.items):
            turn.history = history_of(message.items)
        if message.role != AuthorRole.TOOL:
            continue
        wire = message.to_dict()
        turn.report(wire.get("tool_call_id"), is_error=False, content=wire.get("content"),
                    native=to_json({"role": wire.get("role"), "tool_call_id": wire.get("tool_call_id"),
                                    "content": wire.get("content")}))


adapter = Adapter(
    Implementation("Semantic Kernel (FunctionChoiceBehavior.Auto)", "python",
                   f"semantic-kernel {version('semantic-kernel')}", "https://github.com/microsoft/semantic-kernel"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=True),
    Errors(domain=FunctionExecutionException, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
