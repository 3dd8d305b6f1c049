"""Adapter: Agno's `Agent` (`agno`) behind the conformance protocol.

What is tested: `Agent(model=OpenAIChat(...), tools=[...])` run with `Agent.arun` — Agno's agent
loop over its OpenAI Chat Completions model class (`agno/models/openai/chat.py`, the model of
Agno's quickstart). The model's `AsyncOpenAI` client is given an `httpx2.AsyncClient` over an
`httpx2.MockTransport` (no network): the fake Chat Completions API answers the first request with
the case's calls as `tool_calls` of one assistant message, and the adapter reports the `tool`
messages of the NEXT request — what the model is shown — in order. Rendering the turn and reading
the results is the fake provider's (`conformance/wire/dialects.py`, shared with the opencode
column). Agno resolves and parses calls in `agno/utils/functions.py` (`get_function_call`: JSON,
then `ast.literal_eval`; string values `"true"`/`"false"`/`"null"`/`"none"` rewritten), runs them
in `agno/models/base.py` (`get_function_calls_to_run`, `arun_function_calls`) and
`agno/tools/function.py` (`FunctionCall.aexecute`, the entrypoint wrapped in `validate_call`).

What the model sees: Chat Completions has no error flag, and Agno keeps its own
(`Message.tool_call_error`) out of every provider format (its Claude formatter,
`agno/utils/models/claude.py`, sends no `is_error` either), so every result is reported with
`is_error: false`; the text is the only signal the model gets.

Tools: `@tool(name=..., description=...)` (`agno.tools.tool`, Agno's documented decorator) over a
function whose signature the kit's `pydantic_schema.closed_parameters` writes: Agno validates a
call with `pydantic.validate_call` on the whole signature, so a plain signature is a closed object
(`additionalProperties: false`) and an open object takes `**kwargs`. What a signature cannot state
SKIPs.

Calls: the arguments are JSON text on this wire: an `arguments_text` call is that text, a
structured call its `input`'s JSON (an absent `input` is an empty arguments text, as the wire
carries it).

Handler errors: Agno shows `str(exc)` of whatever a tool raises; its own `AgentRunException`s
(`RetryAgentRun`, `StopAgentRun`) steer the run rather than report a failure. Domain →
`ValueError`, transport → `ConnectionError`, internal → `RuntimeError`.

Capabilities: no cap, no deadline, no codes; calls of one turn run as one batch. Telemetry off
(`run` sets AGNO_TELEMETRY=false).

When the agent raises, the run is over and the model sees nothing: no results are reported and
the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import sys
import warnings
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

os.environ.setdefault("AGNO_TELEMETRY", "false")

import httpx2  # noqa: E402
from agno.agent import Agent  # noqa: E402
from agno.models.openai import OpenAIChat  # noqa: E402
from agno.tools import tool as agno_tool  # noqa: E402
from harness_conformance_adapter import Adapter, Capabilities, Errors, Implementation, Skip, Tool, Turn, to_json  # noqa: E402
from harness_conformance_adapter.pydantic_schema import (  # noqa: E402
    KEYWORDS, Untranslatable, closed_parameters, present_arguments, safe_name, skip_for,
)
from openai import AsyncOpenAI  # noqa: E402

# The Chat Completions wire (rendering a turn, reading the tool results of a request) is the fake
# provider's, shared with the coding-agent adapters: conformance/wire/dialects.py (pure, standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "wire"))
import dialects  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

MODEL = "gpt-4o"


def tool_for(tool: Tool, turn: Turn) -> Any:
    """`@tool` over the function a user would write for this tool."""
    try:
        params, open_object = closed_parameters(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    signature = [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params]
    annotations = {p: a for p, a, _ in params}
    if open_object:
        name = "kwargs"
        while name in annotations:
            name = "_" + name
        signature.append(inspect.Parameter(name, inspect.Parameter.VAR_KEYWORD, annotation=Any))
        annotations[name] = Any
    handler.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    handler.__annotations__ = annotations
    handler.__name__ = handler.__qualname__ = safe_name(tool.name)
    return agno_tool(name=tool.name, description=tool.description or None)(handler)


@dataclass
class FakeApi:
    """Chat Completions on a mock transport: the case's turn first, then "done"; keeps each request."""

    calls: list[Any]
    requests: list[Any] = field(default_factory=list)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        turn = dialects.render_turn(dialects.CHAT, self.calls if len(self.requests) == 1 else [], False, MODEL)
        return httpx2.Response(200, content=dialects.encode(turn, False), headers={"content-type": "application/json"})


def wire_calls(turn: Turn) -> list[Any]:
    calls = [dict(c.raw) for c in turn.case.calls]
    try:
        dialects.check(dialects.CHAT, calls, stream=False)
    except dialects.Unexpressible as exc:
        raise Skip(f"Chat Completions cannot carry this call: {exc}") from None
    return calls


@dataclass
class Scripted:
    agent: Agent
    api: FakeApi


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    api = FakeApi(wire_calls(turn))
    client = AsyncOpenAI(api_key="conformance", base_url="http://openai.invalid/v1", max_retries=0,
                         http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api)))
    model = OpenAIChat(id=MODEL, async_client=client, max_retries=0)
    return Scripted(Agent(model=model, tools=tools, telemetry=False), api)


def history_entry(call: Any) -> Any:
    out: dict[str, Any] = {k: call[k] for k in ("id",) if k in call}
    function = call.get("function") or {}
    if "name" in function:
        out["name"] = function["name"]
    out["arguments_text"] = function.get("arguments", "")
    return out


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    turn.history = [{k: c[k] for k in ("id", "name", "input", "arguments_text") if k in c} for c in scripted.api.calls]
    with turn.harness_may_raise(turn.case.calls):
        await scripted.agent.arun("run the tools", stream=False)
    if len(scripted.api.requests) < 2:
        return
    request = scripted.api.requests[1]
    for message in request.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "assistant" and message.get("tool_calls"):
            turn.history = [history_entry(c) for c in message["tool_calls"]]
    for result in dialects.results(dialects.CHAT, request):
        turn.report(result["tool_use_id"], is_error=bool(result["is_error"]), content=result["content"],
                    native=to_json(result["native"]))


adapter = Adapter(
    Implementation("Agno Agent (OpenAIChat, @tool functions)", "python", version("agno"), "https://github.com/agno-agi/agno"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=True),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
