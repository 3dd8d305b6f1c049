"""The adapter an author defines, and the protocol loop that serves it.

Why this module exists: the JSON-lines loop (PROTOCOL.md sections 1-3 and 5) is the same for
every harness and easy to get subtly wrong — answer once per command, in order, flush, nothing
else on stdout, exit 0 on `stop` or end of input, refuse another protocol version without
answering. An author supplies only what is theirs: the harness's description and capabilities,
how its tools fail (`Errors`), one function that builds the harness for a case, and one that runs
the turn. Both may be plain functions or coroutines; a coroutine case gets a fresh event loop.

While serving, the protocol writes to a private copy of stdout, and the process's own stdout
(fd 1 and `sys.stdout`) is pointed at stderr, so a harness that prints cannot corrupt the
protocol.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import IO, Any, Generic, TypeVar, Union

from . import vocabulary
from .behaviours import Errors, Present
from .capabilities import Capabilities, Implementation, hello
from .case import Case
from .errors import ErrorCode, KitError
from .jsonio import Json, dumps, loads
from .turn import Skip, Turn

H = TypeVar("H")

Build = Callable[[Turn], Union[H, Awaitable[H]]]
"""turn → a fresh harness with the case's tools registered (may be a coroutine function)."""
RunTurn = Callable[[H, Turn], Union[None, Awaitable[None]]]
"""(harness, turn) → None: feed the case's calls as one turn and `turn.report` what the model sees."""

ERROR_LIMIT = 2000


@dataclass(frozen=True)
class Adapter(Generic[H]):
    """Everything the kit needs to put one harness behind the protocol."""

    implementation: Implementation
    capabilities: Capabilities
    errors: Errors
    build: Build[H]
    run_turn: RunTurn[H]
    present: Present | None = None

    def hello(self) -> dict[str, Json]:
        """The validated hello (raises KitError naming a wrong capability)."""
        return hello(self.implementation, self.capabilities)

    def unit_for(self, case: Case) -> str:
        """The unit a case's generated sizes are measured in (chars under a lines cap; under a
        token cap, the unit its estimator counts)."""
        unit = "chars"
        if case.config.cap_unit is not None:
            unit = case.config.cap_unit
        elif self.capabilities.cap is not None:
            unit = self.capabilities.cap.unit
        if unit == "tokens":
            estimator = self.capabilities.cap.estimator if self.capabilities.cap is not None else None
            return estimator.of if estimator is not None else "chars"
        return "chars" if unit == "lines" else unit

    def new_turn(self, case: Case, log: IO[str] | None = None) -> Turn:
        return Turn(case=case, unit=self.unit_for(case), errors=self.errors, present=self.present,
                    log=log or sys.stderr)

    async def _execute_async(self, turn: Turn) -> None:
        harness = self.build(turn)
        if inspect.isawaitable(harness):
            harness = await harness
        ran = self.run_turn(harness, turn)
        if inspect.isawaitable(ran):
            await ran

    def execute(self, turn: Turn) -> None:
        """Builds the harness and runs the turn (on a fresh event loop when either is async)."""
        if inspect.iscoroutinefunction(self.build) or inspect.iscoroutinefunction(self.run_turn):
            asyncio.run(self._execute_async(turn))
            return
        harness = self.build(turn)
        ran = self.run_turn(harness, turn)  # type: ignore[arg-type]
        if inspect.isawaitable(ran):
            asyncio.run(_awaited(ran))

    def run_case(self, raw_case: Json, log: IO[str] | None = None) -> dict[str, Json]:
        """The reply body for one case: results, or `skip`, or `error` (never raises)."""
        log = log or sys.stderr
        try:
            turn = self.new_turn(Case.parse(raw_case), log)
            self.execute(turn)
            return turn.reply()
        except Skip as skip:
            return {"skip": str(skip)}
        except Exception as exc:  # the adapter itself failed: say so, keep serving
            traceback.print_exc(file=log)
            return {"error": f"adapter failed: {type(exc).__name__}: {exc}"[:ERROR_LIMIT]}

    def serve(self, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
        """Answers the runner until `stop` or end of input; returns the exit status."""
        return serve(self, stdin, stdout)


async def _awaited(awaitable: Awaitable[Any]) -> None:
    await awaitable


def _protocol_stdout() -> IO[str]:
    """A private handle on the real stdout; fd 1 and sys.stdout then go to stderr."""
    sys.stdout.flush()
    private = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return private


def _write(out: IO[str], message: dict[str, Json]) -> None:
    out.write(dumps(message) + "\n")
    out.flush()


def serve(adapter: Adapter[Any], stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """The protocol loop (see the module doc). Returns 0 after `stop`/end of input, else non-zero."""
    try:
        greeting = adapter.hello()
    except KitError as exc:
        print(f"harness-conformance-adapter: the hello is invalid: {exc}", file=sys.stderr)
        return 2
    source = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else _protocol_stdout()
    for raw in source:
        if not raw.strip():
            continue
        try:
            message = loads(raw)
            if not isinstance(message, dict):
                raise KitError(ErrorCode.MALFORMED_MESSAGE, what="message", problem="not a JSON object")
        except KitError as exc:
            print(f"harness-conformance-adapter: {exc}", file=sys.stderr)
            return 2
        cmd = message.get("cmd")
        if cmd == "start":
            if message.get("protocol") != vocabulary.PROTOCOL_VERSION:
                error = KitError(ErrorCode.PROTOCOL_MISMATCH, ours=vocabulary.PROTOCOL_VERSION,
                                 theirs=repr(message.get("protocol"))[:100])
                print(f"harness-conformance-adapter: {error}", file=sys.stderr)
                return 1
            _write(out, greeting)
        elif cmd == "run":
            seq, case = message.get("seq"), message.get("case")
            case_id = case.get("id") if isinstance(case, dict) else None
            _write(out, {"seq": seq, "case": case_id, **adapter.run_case(case)})
        elif cmd == "stop":
            return 0
        else:
            print(f"harness-conformance-adapter: {KitError(ErrorCode.UNKNOWN_COMMAND, cmd=repr(cmd)[:100])}",
                  file=sys.stderr)
    return 0
