"""Adapter: Haystack's `Agent` (`haystack-ai`) behind the conformance protocol.

What is tested: `Agent(chat_generator=MockChatGenerator(response_fn=...), tools=[...])` run with
`Agent.run_async` — Haystack's agent loop with its own test double for a chat model
(`haystack.components.generators.chat.MockChatGenerator`, "a drop-in replacement for real Chat
Generators"). The first reply is an assistant `ChatMessage` holding the case's calls as
`ToolCall`s (one turn); the agent resolves and runs them
(`haystack/components/agents/tool_calling.py`: `_resolve_tool_calls`, `_run_tool_async`,
`_finalize_tool_result`; `haystack/tools/tool.py`: `Tool.invoke_async`), and the adapter reports
the tool messages of the NEXT request the generator receives — what the model is shown — in
order: `ToolCallResult.result` as `content`, `.error` as `is_error`, `.origin.id` as the id.

Tools: `Tool(name, description, parameters=<the case's JSON Schema, unchanged>, async_function=fn)`,
Haystack's documented tool class (the `@tool` decorator builds the same object from a signature).
Haystack checks that `parameters` is a valid JSON Schema when the tool is built and never
validates arguments against it (neither form does): every keyword reaches Haystack as written, so
every keyword is declared, and what Haystack does with arguments is what is judged. The function
takes `**kwargs`, so it receives exactly what Haystack passes (a named-parameter function would add
Python's own binding errors, which are not Haystack's).

Calls: a `ToolCall` holds a parsed arguments dict (chat generators parse the provider's JSON
text themselves before the agent sees it), so only structured calls are expressible; a call
without `input` cannot be a `ToolCall` and SKIPs. Arguments are passed as sent (a non-object
stays a non-object).

Handler errors: Haystack wraps every exception from a tool in `ToolInvocationError` ("Failed to
invoke Tool ... Error: <text>"); domain → `ValueError`, transport → `ConnectionError`, internal →
`RuntimeError`. `raise_on_tool_invocation_failure` is left at its default (False: the error
becomes an error result).

Capabilities: feature `offered-tools` = `run_async(tools=[names])` (Haystack's per-run tool
selection); feature `serial-calls` = `Agent(tool_concurrency_limit=1)`. No cap, no deadline, no
codes. Telemetry off (`run` sets HAYSTACK_TELEMETRY_ENABLED=False).

When the agent raises, the run is over and the model sees nothing: no results are reported and
the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

from harness_conformance_adapter import (  # noqa: E402
    MISSING, Adapter, Capabilities, Errors, Implementation, Skip, Tool as CaseTool, Turn, to_json, vocabulary,
)
from haystack.components.agents import Agent  # noqa: E402
from haystack.components.generators.chat import MockChatGenerator  # noqa: E402
from haystack.dataclasses import ChatMessage, ToolCall  # noqa: E402
from haystack.tools import Tool  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def tool_for(tool: CaseTool, turn: Turn) -> Tool:
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(kwargs)

    try:
        return Tool(name=tool.name, description=tool.description, parameters=dict(tool.input_schema),
                    async_function=handler)
    except Exception as exc:  # Haystack refuses to build the tool (its schema check): the case cannot be given
        raise Skip(f"tool {tool.name!r}: Haystack refuses the schema: {exc}") from None


def tool_call(call: Any) -> ToolCall:
    if call.form != "structured":
        raise Skip("a Haystack ToolCall holds parsed arguments: the chat generator, not the agent, parses a "
                   "provider's arguments text")
    if call.input is MISSING:
        raise Skip("a Haystack ToolCall always carries arguments")
    return ToolCall(tool_name=call.get("name"), arguments=call.input, id=call.get("id"))


@dataclass
class Scripted:
    agent: Agent
    calls: list[ToolCall]
    requests: list[list[ChatMessage]] = field(default_factory=list)


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    calls = [tool_call(c) for c in turn.case.calls]
    requests: list[list[ChatMessage]] = []

    def respond(messages: list[ChatMessage]) -> ChatMessage:
        requests.append(list(messages))
        if len(requests) == 1:
            return ChatMessage.from_assistant(tool_calls=calls)
        return ChatMessage.from_assistant("done")

    serial = turn.case.parallel_calls is False
    agent = Agent(chat_generator=MockChatGenerator(response_fn=respond), tools=tools or None,
                  **({"tool_concurrency_limit": 1} if serial else {}))
    return Scripted(agent, calls, requests)


def history_entry(call: ToolCall) -> Any:
    return {"id": to_json(call.id), "name": to_json(call.tool_name), "input": to_json(call.arguments)}


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    turn.history = [history_entry(c) for c in scripted.calls]
    offered = turn.case.offered
    with turn.harness_may_raise(turn.case.calls):
        await scripted.agent.run_async(messages=[ChatMessage.from_user("run the tools")],
                                       **({} if offered is None else {"tools": list(offered)}))
    if len(scripted.requests) < 2:
        return
    for message in scripted.requests[1]:
        if message.tool_calls:
            turn.history = [history_entry(c) for c in message.tool_calls]
        for result in message.tool_call_results:
            turn.report(to_json(result.origin.id), is_error=bool(result.error), content=str(result.result),
                        native={"result": to_json(result.result), "error": result.error,
                                "origin": history_entry(result.origin)})


adapter = Adapter(
    Implementation("Haystack Agent (Tool with a JSON Schema, MockChatGenerator)", "python", version("haystack-ai"),
                   "https://github.com/deepset-ai/haystack"),
    Capabilities(cap=None, retryability=False, keywords=list(vocabulary.KEYWORDS or ()), call_forms=["structured"],
                 parallel=True, history=True, features=["offered-tools", "serial-calls"]),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
