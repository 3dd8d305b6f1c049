"""Adapter: LlamaIndex's function-calling agent (`llama-index-core`) behind the conformance protocol.

What is tested: a `FunctionAgent` (`agent/workflow/function_agent.py`, the agent LlamaIndex's docs
recommend for function-calling models) whose `llm` is LlamaIndex's own `MockFunctionCallingLLM`
(`llms/mock.py`, offline, no network) with a scripted response generator. On the first request the
model answers with the case's calls as `ToolCallBlock`s of one assistant message; the agent turns
them into `ToolSelection`s (`get_tool_calls_from_response`), runs each in its workflow step
(`agent/workflow/base_agent.py` `call_tool` → `_call_tool` → `FunctionTool.acall`), and appends
one `role: "tool"` message per call (`handle_tool_call_results`) before asking the model again. The
adapter reads that NEXT request's messages — exactly what the model would see — and reports each
tool message after the last assistant message, in order: the text of its blocks as `content` and
`additional_kwargs["tool_call_id"]` as the id.

Reading a result: the tool message carries only blocks and the call id. `ToolOutput.is_error` is
set inside the agent, but `handle_tool_call_results` does not put it on the message, so the model
(through any LLM integration) gets no error flag: every result is reported with `is_error: false`.

Tools: `FunctionTool.from_defaults(async_fn=..., name=..., description=..., fn_schema=<model>)` — a
pydantic `fn_schema` is LlamaIndex's way to state a tool's parameters; the model is written from the
case's schema by the kit's `pydantic_schema.model_for` (what it cannot express SKIPs). LlamaIndex
uses `fn_schema` only to describe the tool to the model (and to fill in field defaults): the
function is called with the model's arguments as they came, unvalidated (`tools/function_tool.py`
`acall`). The handler is not told its call's id.

Handler errors: LlamaIndex has no dedicated "show this to the model" error; its agent shows any
exception's text (`_call_tool`: `ToolOutput(content=str(e), is_error=True)`), and its docs have
tools raise ordinary exceptions. domain → `ValueError`, transport → `ConnectionError`, internal →
`RuntimeError`.

Calls: a `ToolCallBlock` takes `tool_kwargs` as a dict or as JSON text (the mock parses text with
`parse_partial_json`, as LlamaIndex's OpenAI integration does), so structured calls pass their
`input` and calls with arguments as text pass that text; raw blocks SKIP. `tool_name` must be a
string and `tool_call_id` a string or absent: other types cannot be put in a `ToolCallBlock`, so
those cases SKIP.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import warnings
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import (
    Adapter, Call, Capabilities, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import KEYWORDS, keyword_handler, model_for
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def tool_for(tool: Tool, turn: Turn) -> FunctionTool:
    return FunctionTool.from_defaults(async_fn=keyword_handler(tool, turn), name=tool.name,
                                      description=tool.description, fn_schema=model_for(tool))


def tool_call_block(call: Call) -> ToolCallBlock:
    if call.form == "raw":
        raise Skip("LlamaIndex receives tool calls already split into id, name and arguments; a raw block is not expressible")
    name, call_id = call.get("name"), call.get("id")
    if not isinstance(name, str):
        raise Skip(f"a ToolCallBlock's tool_name is a string; a {type(name).__name__} name cannot reach LlamaIndex")
    if call_id is not None and not isinstance(call_id, str):
        raise Skip(f"a ToolCallBlock's tool_call_id is a string; a {type(call_id).__name__} id cannot reach LlamaIndex")
    kwargs = call.arguments_text if call.form == "arguments_text" else call.get("input")
    if not isinstance(kwargs, (dict, str)):
        raise Skip(f"a ToolCallBlock's tool_kwargs is an object or a JSON text; a {type(kwargs).__name__} "
                   "cannot reach LlamaIndex")
    return ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=kwargs)


class Script:
    """The scripted model: the case's calls first, then a final answer; records every request."""

    def __init__(self, blocks: list[ToolCallBlock]) -> None:
        self.blocks = blocks
        self.requests: list[list[ChatMessage]] = []

    def __call__(self, messages: Any, **kwargs: Any) -> ChatMessage:
        self.requests.append([m.model_copy(deep=True) for m in messages])
        if len(self.requests) == 1:
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=list(self.blocks))
        return ChatMessage(role=MessageRole.ASSISTANT, content="done")


def build(turn: Turn) -> tuple[FunctionAgent, Script]:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    script = Script([tool_call_block(c) for c in turn.case.calls])
    llm = MockFunctionCallingLLM(response_generator=script)
    return FunctionAgent(tools=tools, llm=llm, system_prompt="Use the tools."), script


def text_of(message: ChatMessage) -> str:
    return "".join(b.text for b in message.blocks if isinstance(b, TextBlock))


def history_of(messages: list[ChatMessage]) -> list[Any]:
    out: list[Any] = []
    for m in messages:
        calls = [b for b in m.blocks if isinstance(b, ToolCallBlock)]
        if m.role == MessageRole.ASSISTANT and calls:
            out = [{"id": b.tool_call_id, "name": b.tool_name,
                    ("arguments_text" if isinstance(b.tool_kwargs, str) else "input"): to_json(b.tool_kwargs)}
                   for b in calls]
    return out


async def run_turn(built: tuple[FunctionAgent, Script], turn: Turn) -> None:
    agent, script = built
    with turn.harness_may_raise(turn.case.calls) as running:
        await agent.run(user_msg="Run the tools.")
    if running.raised or len(script.requests) < 2:
        return
    messages = script.requests[1]
    last_assistant = max((i for i, m in enumerate(messages) if m.role == MessageRole.ASSISTANT), default=-1)
    for m in messages[last_assistant + 1:]:
        if m.role == MessageRole.TOOL:
            turn.report(m.additional_kwargs.get("tool_call_id"), is_error=False, content=text_of(m),
                        native=to_json(m.model_dump(mode="json")))
    turn.history = history_of(messages)


adapter = Adapter(
    Implementation("llama-index-core (FunctionAgent + MockFunctionCallingLLM)", "python", version("llama-index-core"),
                   "https://github.com/run-llama/llama_index"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=True),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
