"""One case's run: the scripted handlers, the invocation log, and what the harness produced.

Why this module exists: it is where the protocol's blame rule lives. Three different things can
go wrong while an adapter runs a case, and each must reach the runner as what it is:

- the harness under test failed (refused a valid call, crashed, returned NaN): that is a
  *result* — report what the model would see, or nothing. `harness_may_raise` marks the code that
  calls into the harness: an exception from inside it means the model saw nothing for those calls;
  it is logged to stderr as `harness raised: ...` and swallowed, so the runner judges the gap;
- the harness cannot express the case: `raise Skip(reason)` (or `turn.skip(reason)`);
- the adapter failed (its own bug, a behaviour this kit cannot perform): any other exception
  escaping the author's code, or a KitError raised inside a scripted handler even if the harness
  swallowed it, makes the reply an `error`.

Handlers record every run with a deep copy of their arguments taken on entry, before the
behaviour touches them.
"""

from __future__ import annotations

import asyncio
import copy
import sys
import threading
import traceback
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any, NoReturn

from .behaviours import AsyncHandler, Errors, HandlerStopped, Present, Script, SyncHandler
from .case import MISSING, Call, Case, Tool
from .errors import ErrorCode, KitError
from .jsonio import Json, to_json


class Skip(Exception):
    """The case cannot be expressed faithfully in this harness; the message says why."""


@dataclass
class HarnessRaised:
    """What `harness_may_raise` saw: the exception, if the harness raised one."""

    exception: BaseException | None = None

    @property
    def raised(self) -> bool:
        return self.exception is not None


def one_line(exc: BaseException, limit: int = 1000) -> str:
    """An exception as one bounded line: its type and message, whitespace collapsed, other
    control characters escaped (it reaches a terminal)."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    text = " ".join(text.split()) or type(exc).__name__
    return "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) == "Cc" else c for c in text[:limit])


@dataclass
class Turn:
    """One case's run. The author's `build` and `run_turn` receive it.

    - `case`: the case (tools, calls, config);
    - `unit`: the unit generated sizes are measured in (the case's cap unit, else the harness's
      declared unit, else chars);
    - `current_call`: set it while the harness runs one call, so handlers that are not told their
      call's id still record it (leave it None when calls run as a batch);
    - `history`: set it (a list) when the harness has the `history` capability.
    """

    case: Case
    unit: str
    errors: Errors
    present: Present | None = None
    log: IO[str] = field(default_factory=lambda: sys.stderr)
    current_call: Call | None = None
    history: list[Json] | None = None
    results: list[dict[str, Json]] = field(default_factory=list)
    invocations: list[dict[str, Json]] = field(default_factory=list)
    adapter_failure: KitError | None = None

    # ---- handlers -----------------------------------------------------------------------------

    def _tool(self, tool: Tool | str) -> Tool:
        if isinstance(tool, Tool):
            return tool
        found = self.case.tool(tool)
        if found is None:
            raise KeyError(f"the case has no tool {tool!r}")
        return found

    def _failed(self, exc: KitError) -> None:
        if self.adapter_failure is None:
            self.adapter_failure = exc

    def script(self, tool: Tool | str) -> Script:
        """The tool's scripted behaviour, for an adapter that writes its own handler around it."""
        return Script(self._tool(tool).behavior, self.unit, self.errors, self.present, self._failed)

    def record(self, tool: Tool | str, args: Any, tool_use_id: Json = MISSING) -> None:
        """Logs one handler run with a deep copy of `args`, as JSON, taken now.

        `tool_use_id`: the call the harness told the handler it serves; when not given, the id of
        `current_call` (if set).
        """
        name = tool.name if isinstance(tool, Tool) else tool
        if tool_use_id is MISSING and self.current_call is not None:
            tool_use_id = self.current_call.id
        entry: dict[str, Json] = {"tool": name, "args": to_json(copy.deepcopy(args))}
        if tool_use_id is not MISSING and tool_use_id is not None:
            entry["tool_use_id"] = to_json(tool_use_id)
        self.invocations.append(entry)

    def handler(self, tool: Tool | str, cancel: threading.Event | None = None) -> SyncHandler:
        """A synchronous handler `fn(args, tool_use_id=MISSING)` that records, then performs.

        `cancel` (feature `cancel`): the event the harness sets to tell its handlers the turn
        was cancelled; a sleep it ends stops the handler (`HandlerStopped`) and the invocation
        is marked `stopped`.
        """
        script = self.script(tool)
        script_tool = self._tool(tool)

        def handle(args: Any, tool_use_id: Json = MISSING) -> Any:
            self.record(script_tool, args, tool_use_id)
            entry = self.invocations[-1]
            try:
                return script.run(args, cancel)
            except HandlerStopped:
                entry["stopped"] = True
                raise

        return handle

    def async_handler(self, tool: Tool | str) -> AsyncHandler:
        """An async handler `await fn(args, tool_use_id=MISSING)`; sleeps yield to the loop."""
        script = self.script(tool)
        script_tool = self._tool(tool)

        async def handle(args: Any, tool_use_id: Json = MISSING) -> Any:
            self.record(script_tool, args, tool_use_id)
            entry = self.invocations[-1]
            try:
                return await script.run_async(args)
            except asyncio.CancelledError:
                # The harness cancelled the task (feature `cancel`): the handler stops here.
                entry["stopped"] = True
                raise

        return handle

    # ---- what the harness produced ------------------------------------------------------------

    def report(self, tool_use_id: Json, *, is_error: bool, content: str, code: str | None = None,
               retryable: bool | None = None, native: Any = MISSING,
               blocks: Sequence[Json] | None = None) -> None:
        """Adds one result, exactly as the harness produced it (never trimmed or re-worded).

        `tool_use_id`: the id the harness put on the result (None when it set none);
        `content`: the text the model is shown; `code`, `retryable`: the harness's own, if any;
        `native`: the harness's result object, converted with `to_json` for reports;
        `blocks`: every content block the result carries, in order, in MCP's JSON form (PROTOCOL.md
        section 4e; `mcp_host.blocks_of` translates MCP content), or None for a text-only result.
        """
        if not isinstance(is_error, bool):
            raise KitError(ErrorCode.BAD_RESULT, field="is_error", problem=f"{type(is_error).__name__} is not a bool")
        if not isinstance(content, str):
            raise KitError(ErrorCode.BAD_RESULT, field="content", problem=f"{type(content).__name__} is not a string")
        if code is not None and not isinstance(code, str):
            raise KitError(ErrorCode.BAD_RESULT, field="code", problem=f"{type(code).__name__} is not a string")
        if retryable is not None and not isinstance(retryable, bool):
            raise KitError(ErrorCode.BAD_RESULT, field="retryable", problem=f"{type(retryable).__name__} is not a bool")
        result: dict[str, Json] = {
            "tool_use_id": None if tool_use_id is MISSING else to_json(tool_use_id),
            "is_error": is_error,
            "content": content,
        }
        if code is not None:
            result["code"] = code
        if retryable is not None:
            result["retryable"] = retryable
        if native is not MISSING:
            result["native"] = to_json(native)
        if blocks is not None:
            if not isinstance(blocks, (list, tuple)) or not all(isinstance(b, dict) for b in blocks):
                raise KitError(ErrorCode.BAD_RESULT, field="blocks", problem="not a list of block objects")
            result["blocks"] = [to_json(b) for b in blocks]
        self.results.append(result)

    @contextmanager
    def harness_may_raise(self, calls: Call | Sequence[Call] | None = None) -> Iterator[HarnessRaised]:
        """Wraps code that calls into the harness: if the harness raises, the model sees nothing.

        The exception is logged to stderr as `harness raised: <type: message> [for call <ids>]`
        (what conformance/adapters/write_baselines.py quotes in baseline reasons) and swallowed;
        `Skip` and kit errors pass through. The yielded object tells whether it happened.
        """
        outcome = HarnessRaised()
        try:
            yield outcome
        except (Skip, KitError):
            raise
        except Exception as exc:
            if self.adapter_failure is not None:
                raise self.adapter_failure from exc
            outcome.exception = exc
            ids: Json
            if calls is None:
                ids = [c.id_or_none for c in self.case.calls]
            elif isinstance(calls, Call):
                ids = calls.id_or_none
            else:
                ids = [c.id_or_none for c in calls]
            print(f"harness raised: {one_line(exc)} [for call {ids!r}]", file=self.log, flush=True)

    def skip(self, reason: str) -> NoReturn:
        """Answers `skip`: the harness cannot express this case (the reason is shown in reports)."""
        raise Skip(reason)

    def reply(self) -> dict[str, Json]:
        """The reply body: results, invocations and (when set) history; raises an adapter failure."""
        if self.adapter_failure is not None:
            raise self.adapter_failure
        body: dict[str, Json] = {"results": self.results, "invocations": self.invocations}
        if self.history is not None:
            body["history"] = self.history
        return body
