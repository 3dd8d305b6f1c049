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

Tools: `StructuredTool.from_function(coroutine=..., args_schema=<pydantic model>)` — a pydantic
args_schema is what langchain validates (a dict args_schema is not validated at all). The model is
written from the case's schema by python-common/schema2py.py; what it cannot express SKIPs. The
handler is not told its call id: langchain's way to tell it (an `InjectedToolCallId` field)
changes behaviour — such a tool refuses to run for a call without an id — so invocations carry
no `tool_use_id`.

Handler errors, in langchain's idiom: domain → `ToolException` (langchain's "tool error" type),
transport → `ConnectionError`, internal → `RuntimeError`.

When the graph raises, the turn is lost and the model sees nothing: no results are reported and
the exception goes to stderr.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import warnings
from importlib.metadata import version

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-common"))

import hcproto  # noqa: E402
import schema2py  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import StructuredTool, ToolException  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

HANDLE_ERRORS = "--handle-tool-errors" in sys.argv[1:]
RAISERS = hcproto.Raisers(domain=ToolException, transport=ConnectionError, internal=RuntimeError)

HELLO = {
    "implementation": {
        "name": "langgraph ToolNode" + (" (handle_tool_errors=True)" if HANDLE_ERRORS else " (default error handling)"),
        "language": "python",
        "version": f"langgraph {version('langgraph')}, langgraph-prebuilt {version('langgraph-prebuilt')}, "
                   f"langchain-core {version('langchain-core')}",
        "homepage": "https://github.com/langchain-ai/langgraph",
    },
    "capabilities": {
        "cap": None,
        "retryability": False,
        "keywords": schema2py.KEYWORDS,
        "call_forms": ["structured", "arguments_text"],
        "parallel": True,
        "history": True,
    },
}


def tool_for(tool: dict, unit: str, invocations: hcproto.Invocations) -> StructuredTool:
    schema = tool["input_schema"]
    try:
        model = schema2py.root_model(schema, tool["name"])
    except schema2py.Untranslatable as exc:
        raise hcproto.Skip(f"tool {tool['name']!r}: {exc}") from None
    if schema2py.uses_aliases(model):
        raise hcproto.Skip(f"tool {tool['name']!r}: a property name is not a Python identifier, and "
                           "langchain passes validated arguments by field name")
    name, behavior = tool["name"], tool["behavior"]

    async def handler(**kwargs):
        args = {k: v for k, v in kwargs.items() if v is not hcproto.UNSET}
        invocations.record(name, None, args)
        value = await hcproto.perform_async(behavior, args, unit, RAISERS)
        return value

    return StructuredTool.from_function(
        coroutine=handler, name=name, description=tool["description"], args_schema=model,
    )


def ai_message(calls: list) -> AIMessage:
    structured, provider = [], []
    for call in calls:
        if "raw" in call:
            raise hcproto.Skip("langchain receives calls already split into name, id and arguments; a raw block is not expressible")
        if "arguments_text" in call:
            provider.append({"id": call.get("id"), "type": "function",
                             "function": {"name": call.get("name"), "arguments": call["arguments_text"]}})
        else:
            structured.append({"name": call.get("name"), "args": call.get("input"), "id": call.get("id"),
                               "type": "tool_call"})
    if provider and structured:
        raise hcproto.Skip("one assistant message cannot mix parsed tool calls with provider-format tool calls")
    if provider:
        return AIMessage(content="", additional_kwargs={"tool_calls": provider})
    return AIMessage(content="", tool_calls=structured)


def history_of(m: AIMessage) -> list:
    """The calls as the assistant message keeps them after the turn."""
    if m.additional_kwargs.get("tool_calls"):
        # provider-format calls: the message keeps the model's text verbatim here
        return [{"id": c.get("id"), "name": c["function"].get("name"), "arguments_text": c["function"].get("arguments")}
                for c in m.additional_kwargs["tool_calls"]]
    return [{"id": c.get("id"), "name": c.get("name"), "input": hcproto.jsonable(c.get("args"))} for c in m.tool_calls]


def content_text(content) -> str:
    if isinstance(content, str):
        return content
    return hcproto.text_of_blocks([b if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in content])


async def run_async(case: dict) -> dict:
    unit = hcproto.cap_unit(case)
    invocations = hcproto.Invocations()
    tools = [tool_for(t, unit, invocations) for t in case["tools"]]
    node = ToolNode(tools, handle_tool_errors=True) if HANDLE_ERRORS else ToolNode(tools)
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    app = graph.compile()
    ids = [c.get("id") for c in case["calls"]]
    try:
        message = ai_message(case["calls"])
    except hcproto.Skip:
        raise
    except Exception as exc:  # langchain-core refuses to build the assistant message itself
        hcproto.log_harness_raise(ids, exc)
        return {"results": [], "invocations": invocations.entries}
    try:
        state = await app.ainvoke({"messages": [message]})
    except Exception as exc:
        # The turn is lost; the transcript is the assistant message the caller still holds.
        hcproto.log_harness_raise(ids, exc)
        return {"results": [], "invocations": invocations.entries, "history": history_of(message)}
    results, history = [], []
    for m in state["messages"]:
        if isinstance(m, AIMessage):
            history = history_of(m)
        elif isinstance(m, ToolMessage):
            results.append({
                "tool_use_id": m.tool_call_id,
                "is_error": m.status == "error",
                "content": content_text(m.content),
                "native": hcproto.jsonable(json.loads(m.model_dump_json())),
            })
    return {"results": results, "invocations": invocations.entries, "history": history}


def run_case(case: dict) -> dict:
    return asyncio.run(run_async(case))


if __name__ == "__main__":
    hcproto.serve(HELLO, run_case)
