"""Adapter: LangGraph's prebuilt `ToolNode` behind the conformance protocol.

Two implementations share this file (`run` scripts in langgraph-default/ and
langgraph-handle-errors/): `ToolNode(tools)` with its default error handling, and
`ToolNode(tools, handle_tool_errors=True)` (pass `--handle-tool-errors`).

What is tested: a one-node `StateGraph(MessagesState)` holding the ToolNode — the tool step of
every LangGraph agent — invoked with the case's calls as one `AIMessage`. Structured calls become
`AIMessage(tool_calls=[...])`; calls with arguments as text become the provider-style
`additional_kwargs["tool_calls"]` that langchain-core parses itself (unparseable ones land in
`invalid_tool_calls`, as with a real chat model). The adapter reports the `ToolMessage`s the graph
appends — what the model is shown on its next turn: `content`, `status == "error"`, `tool_call_id`.

Tools: `StructuredTool.from_function(coroutine=..., args_schema=<pydantic model>,
handle_tool_error=True)` — a pydantic args_schema is what langchain validates (a dict args_schema
is not validated at all), and `handle_tool_error=True` is the setting LangChain's docs pair with
raising `ToolException` ("raise ToolException and set handle_tool_error"): the exception's message
becomes the tool's error output instead of propagating. The model is
written from the case's schema by the kit's `pydantic_schema.keyword_model`; what it cannot express
SKIPs. The
handler is not told its call id: langchain's way to tell it (an `InjectedToolCallId` field)
changes behaviour — such a tool refuses to run for a call without an id — so invocations carry
no `tool_use_id`.

Handler errors, in langchain's idiom: domain → `ToolException` (langchain's "tool error" type,
with the tool's `handle_tool_error`), transport → `ConnectionError`, internal → `RuntimeError`.

Deadline: the compiled graph's `step_timeout` (seconds; a Pregel setting documented for bounding
each superstep), set from the case's `deadline_ms`: the tool step is the graph's only step, so it
is the handler deadline. When it fires, `ainvoke` raises `TimeoutError` and the model sees nothing.

Calls are passed as the model sent them: a field the call leaves out (`id`, `name`, `input`) is
left out of the tool call, and `"input": null` is `"args": None`; langchain-core's message model
decides what it accepts.

When the graph raises, the turn is lost and the model sees nothing: no results are reported and
the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import json
import logging
import sys
import warnings
from importlib.metadata import version
from typing import Any

from harness_conformance_adapter import (
    MISSING, Adapter, Call, Capabilities, Deadline, Errors, Implementation, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import KEYWORDS, keyword_handler, keyword_model
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import StructuredTool, ToolException
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

HANDLE_ERRORS = "--handle-tool-errors" in sys.argv[1:]


def tool_for(tool: Tool, turn: Turn) -> StructuredTool:
    return StructuredTool.from_function(
        coroutine=keyword_handler(tool, turn), name=tool.name, description=tool.description,
        args_schema=keyword_model(tool, "langchain passes validated arguments by field name"),
        handle_tool_error=True,
    )


def present(**fields: Any) -> dict[str, Any]:
    """The fields the call has: one it leaves out stays out (absent is not null)."""
    return {k: v for k, v in fields.items() if v is not MISSING}


def ai_message(calls: list[Call]) -> AIMessage:
    structured, provider = [], []
    for call in calls:
        if call.form == "raw":
            raise Skip("langchain receives calls already split into name, id and arguments; a raw block is not expressible")
        if call.form == "arguments_text":
            provider.append({**present(id=call.id), "type": "function",
                             "function": {**present(name=call.name), "arguments": call.arguments_text}})
        else:
            structured.append({**present(name=call.name, args=call.input, id=call.id), "type": "tool_call"})
    if provider and structured:
        raise Skip("one assistant message cannot mix parsed tool calls with provider-format tool calls")
    if provider:
        return AIMessage(content="", additional_kwargs={"tool_calls": provider})
    return AIMessage(content="", tool_calls=structured)


def history_of(m: AIMessage) -> list[Any]:
    """The calls as the assistant message keeps them after the turn."""
    if m.additional_kwargs.get("tool_calls"):
        # provider-format calls: the message keeps the model's text verbatim here
        return [{"id": c.get("id"), "name": c["function"].get("name"), "arguments_text": c["function"].get("arguments")}
                for c in m.additional_kwargs["tool_calls"]]
    return [{"id": c.get("id"), "name": c.get("name"), "input": to_json(c.get("args"))} for c in m.tool_calls]


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    blocks = [b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content]
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def build(turn: Turn) -> Any:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    node = ToolNode(tools, handle_tool_errors=True) if HANDLE_ERRORS else ToolNode(tools)
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    app = graph.compile()
    deadline_ms = turn.case.config.deadline_ms
    if deadline_ms is not None:
        app.step_timeout = deadline_ms / 1000
    return app


async def run_turn(app: Any, turn: Turn) -> None:
    with turn.harness_may_raise(turn.case.calls) as building:  # langchain-core may refuse the message itself
        message = ai_message(list(turn.case.calls))
    if building.raised:
        return
    with turn.harness_may_raise(turn.case.calls) as running:
        state = await app.ainvoke({"messages": [message]})
    if running.raised:
        # The turn is lost; the transcript is the assistant message the caller still holds.
        turn.history = history_of(message)
        return
    history: list[Any] = []
    for m in state["messages"]:
        if isinstance(m, AIMessage):
            history = history_of(m)
        elif isinstance(m, ToolMessage):
            turn.report(m.tool_call_id, is_error=m.status == "error", content=content_text(m.content),
                        native=json.loads(m.model_dump_json()))
    turn.history = history


adapter = Adapter(
    Implementation(
        "langgraph ToolNode" + (" (handle_tool_errors=True)" if HANDLE_ERRORS else " (default error handling)"),
        "python",
        f"langgraph {version('langgraph')}, langgraph-prebuilt {version('langgraph-prebuilt')}, "
        f"langchain-core {version('langchain-core')}",
        "https://github.com/langchain-ai/langgraph",
    ),
    Capabilities(cap=None, retryability=False, deadline=Deadline(configurable=True), keywords=KEYWORDS,
                 call_forms=["structured", "arguments_text"], parallel=True, history=True),
    Errors(domain=ToolException, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
