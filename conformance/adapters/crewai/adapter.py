"""Adapter: CrewAI's agent loop (`crewai`) behind the conformance protocol.

What is tested: a CrewAI `Agent` run with `Agent.kickoff`, whose `llm` is a scripted `BaseLLM`
(offline, no network) that supports native function calling. CrewAI's `AgentExecutor`
(`agents/agent_executor.py`) asks the model first; the model answers with the case's calls as a
list of OpenAI-style tool calls (one assistant turn); the executor runs them
(`execute_native_tool` → `_execute_single_native_tool_call`, in a thread pool when there are
several), appends one `role: "tool"` message per call and asks the model again. The adapter reads
that NEXT call's messages — exactly what the model would see — and reports each tool message after
the last assistant message, in order: `content`, and `tool_call_id` as the id.

Reading a result: CrewAI sends tool results as OpenAI-style `tool` messages, which have no error
flag; a failure (a `ToolFailure`, an exception, an unknown tool, unparseable arguments) is shown
as text only. CrewAI records failures for itself (`tool_failure`, `ToolUsageFinishedEvent`), but
none of that reaches the model, so every result is reported with `is_error: false`.

Tools: a `BaseTool` subclass with a pydantic `args_schema` and a `_run` — the form CrewAI's docs
give for custom tools; the model is written from the case's schema by the kit's
`pydantic_schema.keyword_model` (CrewAI validates with `args_schema.model_validate` in
`BaseTool._validate_kwargs` and calls `_run` with `model_dump()`). What it cannot express SKIPs,
and so does a property that is not a Python identifier (CrewAI passes validated arguments by field
name). CrewAI's defaults are kept: tool result caching (`cache=True`, keyed by tool and input),
`ToolFailurePolicy.WARN`, and `use_better_compaction` (below).

The cap, as measured: with `use_better_compaction` (on by default) a successful result whose
estimated size exceeds a quarter of the model's context window is stored as a temporary file and
the model is shown a reference instead — the artifact's path, its line and token counts, a preview
of its first 10 lines (at most 2,000 chars) and the name of a reader tool
(`agents/agent_executor.py` `_prepare_tool_result_for_context`, `utilities/tool_result_artifacts.py`).
The estimate is one token per four Unicode scalar values (`BaseLLM.get_input_tokens_count`), and a
`BaseLLM` without a window of its own reports 4,096 tokens (`get_context_window_size`), so results
of more than 4,096 chars are deferred: declared as a cap of 4,096 chars, `head_only`, not
configurable (the limit follows the model's window; a case cannot set it). Failed results are never
deferred.

Handler errors, in CrewAI's idiom: domain → the tool returns a `ToolFailure(message)` (CrewAI's
"tool ran but did not succeed" result, `tools/tool_failure.py`), transport → `ConnectionError`,
internal → `RuntimeError` (CrewAI catches both and shows `Error executing tool: <text>`).

Calls: structured calls carry their `input` as the tool call's `arguments` object (CrewAI accepts
an object or a JSON text there, `utilities/agent_utils.py` `extract_tool_call_info`), calls with
arguments as text carry that text, as OpenAI's API delivers it. Raw blocks SKIP. The handler is
not told its call's id.

Telemetry, tracing and the CLI's first-run prompts are turned off by environment (below).

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import tempfile
import warnings
from importlib.metadata import version
from typing import Any, Callable

# Offline and quiet, as CrewAI documents it: no telemetry, no tracing, storage in a private folder.
os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["CREWAI_DISABLE_TRACKING"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ["OTEL_SDK_DISABLED"] = "true"
STORAGE = tempfile.mkdtemp(prefix="crewai-conformance-")
atexit.register(shutil.rmtree, STORAGE, ignore_errors=True)
os.environ["CREWAI_STORAGE_DIR"] = STORAGE

from crewai import Agent  # noqa: E402
from crewai.llms.base_llm import BaseLLM  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from crewai.tools.tool_failure import ToolFailure  # noqa: E402
from harness_conformance_adapter import (  # noqa: E402
    Adapter, Call, Cap, Capabilities, Errors, Implementation, ReturnInstead, Skip, Tool, Turn, to_json,
)
from harness_conformance_adapter.pydantic_schema import KEYWORDS, keyword_model, present_arguments  # noqa: E402
from pydantic import PrivateAttr  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


class CaseTool(BaseTool):
    """A custom CrewAI tool: `args_schema` from the case, `_run` performs the case's script."""

    _handle: Callable[[Any], Any] = PrivateAttr()

    def _run(self, **kwargs: Any) -> Any:
        return self._handle(present_arguments(kwargs))


def tool_for(tool: Tool, turn: Turn) -> CaseTool:
    model = keyword_model(tool, "CrewAI passes validated arguments by field name")
    made = CaseTool(name=tool.name, description=tool.description, args_schema=model)
    made._handle = turn.handler(tool)
    return made


def tool_call(call: Call) -> dict[str, Any]:
    """One call as an OpenAI-style tool call, the shape CrewAI's executor reads."""
    if call.form == "raw":
        raise Skip("CrewAI receives tool calls already split into id, name and arguments; a raw block is not expressible")
    arguments = call.arguments_text if call.form == "arguments_text" else call.get("input")
    out: dict[str, Any] = {"type": "function", "function": {"name": call.get("name"), "arguments": arguments}}
    if "id" in call.raw:
        out["id"] = call.get("id")
    return out


class ScriptedLLM(BaseLLM):
    """First call: the case's tool calls. Later calls: recorded, answered with a final text."""

    calls: list[dict[str, Any]] = []
    seen: list[list[dict[str, Any]]] = []

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        self.seen.append(loads_messages(messages))
        if len(self.seen) == 1:
            return [dict(c) for c in self.calls]
        return "done"

    def supports_function_calling(self) -> bool:
        return True


def loads_messages(messages: Any) -> list[dict[str, Any]]:
    """A copy of the messages as sent (they are the executor's own list, which it goes on changing)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    return [dict(m) for m in messages]


def build(turn: Turn) -> tuple[Agent, ScriptedLLM]:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    llm = ScriptedLLM(model="scripted", calls=[tool_call(c) for c in turn.case.calls], seen=[])
    agent = Agent(role="conformance", goal="Run the tools.", backstory="A test agent.", llm=llm, tools=tools,
                  verbose=False)
    return agent, llm


def history_of(messages: list[dict[str, Any]], calls: list[Call]) -> list[Any]:
    """The calls as CrewAI's assistant message keeps them: arguments as JSON text (`json.dumps` of
    a structured input, taken before any tool runs), shown as `input` for a call the model sent
    structured and verbatim for a call sent as text."""
    out: list[Any] = []
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            out = []
            for i, c in enumerate(message["tool_calls"]):
                arguments = c.get("function", {}).get("arguments")
                entry: dict[str, Any] = {"id": c.get("id"), "name": c.get("function", {}).get("name")}
                structured = i < len(calls) and calls[i].form == "structured" and isinstance(arguments, str)
                if structured:
                    entry["input"] = json.loads(arguments)
                else:
                    entry["arguments_text"] = arguments
                out.append(entry)
    return out


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return str(content)


def run_turn(built: tuple[Agent, ScriptedLLM], turn: Turn) -> None:
    agent, llm = built
    with turn.harness_may_raise(turn.case.calls) as running:
        agent.kickoff("Run the tools.")
    if running.raised or len(llm.seen) < 2:
        return
    messages = llm.seen[1]
    last_assistant = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    for message in messages[last_assistant + 1:]:
        if message.get("role") == "tool":
            turn.report(message.get("tool_call_id"), is_error=False, content=content_text(message.get("content")),
                        native=to_json({k: v for k, v in message.items() if k in ("role", "tool_call_id", "name", "content")}))
    turn.history = history_of(messages, list(turn.case.calls))


adapter = Adapter(
    Implementation("crewai (Agent.kickoff, native tool calls)", "python", version("crewai"), "https://github.com/crewAIInc/crewAI"),
    Capabilities(cap=Cap(unit="chars", limit=4096, strategies=["head_only"]), retryability=False, keywords=KEYWORDS, call_forms=["structured", "arguments_text"],
                 parallel=True, history=True),
    Errors(domain=lambda m: ReturnInstead(ToolFailure(message=m)), transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
