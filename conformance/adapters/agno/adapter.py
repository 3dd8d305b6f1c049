"""Adapter: Agno's `Agent` (`agno`) behind the conformance protocol.

What is tested: `Agent(model=Claude(...), tools=[...])` run with `Agent.arun` — Agno's agent
loop over its Anthropic model class (`agno/models/anthropic/claude.py`; Agno's docs use it and
`OpenAIChat` alike). The model's `AsyncAnthropic` client is given an `httpx2.AsyncClient` over an
`httpx2.MockTransport` (no network): the fake Messages API answers the first request with the
case's calls as `tool_use` blocks of one assistant message, and the adapter reports the
`tool_result` blocks of the NEXT request — what the model is shown — in order. Rendering the turn
and reading the results is the fake provider's (`conformance/wire/dialects.py`, shared with the
Claude Code column). Claude rather than OpenAI Chat: the suite's tool-use ids are Anthropic's
(`toolu_…`), and Agno rewrites ids that lack a provider's prefix before sending a request
(`agno/utils/message.py`, `reformat_tool_call_ids`: every `toolu_…` id becomes `call_000…` for
OpenAI Chat), which no real OpenAI turn would trigger. Agno resolves and parses calls in `agno/utils/functions.py` (`get_function_call`: JSON,
then `ast.literal_eval`; string values `"true"`/`"false"`/`"null"`/`"none"` rewritten), runs them
in `agno/models/base.py` (`get_function_calls_to_run`, `arun_function_calls`) and
`agno/tools/function.py` (`FunctionCall.aexecute`, the entrypoint wrapped in `validate_call`).

What the model sees: Agno marks a failed call on its own message (`Message.tool_call_error`) but
its Claude formatter (`agno/utils/models/claude.py`, `format_messages`) writes a `tool_result`
without `is_error`, so the model is never told a call failed; `is_error` is read from the request
as sent (always false here).

Tools: `@tool(name=..., description=...)` (`agno.tools.tool`, Agno's documented decorator) over a
function whose signature the kit's `pydantic_schema.closed_signature` writes: Agno validates a
call with `pydantic.validate_call` on the whole signature, so a plain signature is a closed object
(`additionalProperties: false`) and an open object takes `**kwargs`. What a signature cannot state
SKIPs.

Calls: a whole (not streamed) Messages response carries `tool_use` blocks with an `input` object,
exactly as the case wrote them (absent fields stay absent); arguments as text and raw blocks SKIP.

Handler errors: Agno shows `str(exc)` of whatever a tool raises; its own `AgentRunException`s
(`RetryAgentRun`, `StopAgentRun`) steer the run rather than report a failure. Domain →
`ValueError`, transport → `ConnectionError`, internal → `RuntimeError`.

Capabilities: no cap, no deadline, no codes; calls of one turn run as one batch. Telemetry off
(`run` sets AGNO_TELEMETRY=false).

When the run fails (Agno returns a `RunOutput` with status `error` rather than raising), it is
over and the model sees nothing: no results are reported and the error is written to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

os.environ.setdefault("AGNO_TELEMETRY", "false")

import httpx2  # noqa: E402
from agno.agent import Agent  # noqa: E402
from agno.models.anthropic import Claude  # noqa: E402
from agno.run.base import RunStatus  # noqa: E402
from anthropic import AsyncAnthropic  # noqa: E402
from agno.tools import tool as agno_tool  # noqa: E402
from harness_conformance_adapter import Adapter, Capabilities, Errors, Implementation, Tool, Turn, to_json  # noqa: E402
from harness_conformance_adapter.pydantic_schema import (  # noqa: E402
    KEYWORDS, Untranslatable, closed_signature, present_arguments, safe_name, skip_for,
)

# The Messages wire (rendering a turn, reading the tool results of a request) is the fake
# provider's, shared with the coding-agent adapters: conformance/wire/dialects.py, driven by conformance/wire/inprocess.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "wire"))
import dialects  # noqa: E402
from inprocess import ScriptedProvider  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

JSON = {"content-type": "application/json"}
MODEL = "claude-sonnet-4-5"


def tool_for(tool: Tool, turn: Turn) -> Any:
    """`@tool` over the function a user would write for this tool."""
    try:
        signature, annotations = closed_signature(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    handler.__signature__ = signature  # type: ignore[attr-defined]
    handler.__annotations__ = annotations
    handler.__name__ = handler.__qualname__ = safe_name(tool.name)
    return agno_tool(name=tool.name, description=tool.description or None)(handler)


class RunEndedWithError(Exception):
    """`Agent.arun` returned a `RunOutput` with status `error` (Agno's way of failing a run)."""


@dataclass
class Scripted:
    agent: Agent
    api: ScriptedProvider


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    api = ScriptedProvider(dialects.ANTHROPIC, turn, MODEL)
    transport = httpx2.MockTransport(lambda r: httpx2.Response(200, content=api.answer(r.content), headers=JSON))
    client = AsyncAnthropic(api_key="conformance", base_url="http://anthropic.invalid", max_retries=0,
                            http_client=httpx2.AsyncClient(transport=transport))
    model = Claude(id=MODEL, async_client=client)
    return Scripted(Agent(model=model, tools=tools, telemetry=False), api)


def history_entry(call: Any) -> Any:
    return {k: call[k] for k in ("id", "name", "input") if k in call}


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    turn.history = [history_entry(c) for c in scripted.api.calls]
    with turn.harness_may_raise(turn.case.calls):
        output = await scripted.agent.arun("run the tools", stream=False)
        if output.status == RunStatus.error:
            # Agno ends the run and returns the exception's text instead of raising it; the model is
            # not called again. Raised here only so that the kit logs it like any harness failure.
            raise RunEndedWithError(str(output.content))
    request = scripted.api.next_request()
    if request is None:
        return
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) and message.get("role") == "assistant" else None
        uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(content, list) else []
        if uses:
            turn.history = [history_entry(b) for b in uses]
    for result in scripted.api.results() or []:
        turn.report(result["tool_use_id"], is_error=bool(result["is_error"]), content=result["content"],
                    native=to_json(result["native"]))


adapter = Adapter(
    Implementation("Agno Agent (Claude model, @tool functions)", "python", version("agno"), "https://github.com/agno-agi/agno"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured"],
                 parallel=True, history=True),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
