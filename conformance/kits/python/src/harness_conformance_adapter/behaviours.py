"""Scripted tool behaviours (PROTOCOL.md section 4) as Python callables.

Why this module exists: every case's handlers are scripts — return this, raise that kind of
error, sleep, change my own arguments, then return — and every adapter must perform them
exactly, since the runner materialises the same outputs for its checks. The three registries
below are the only place each word of the script is given meaning:

- `STEPS`: behaviour kind → one step (`return`, `raise`, `sleep_ms`, `mutate_args`);
- `OUTPUTS`: output kind → the Python value a handler returns (`text`, `json`, `generate`, ...);
- `GENERATORS`: generator kind → the text it expands to, sized in the case's unit.

To add a behaviour, an output or a generator: write one function and register it under the word
the schema uses. The kit's tests compare each registry with `vocabulary` (generated from
run.schema.json), so a word the protocol gained and the kit lacks fails the tests.

How an error or a value looks in a given harness is the adapter's choice, not the script's:
`Errors` maps each raise kind to the harness's idiomatic exception (or to a value returned
instead, for harnesses whose tools report refusals by returning), and `present` may turn a
returned value into the harness's own result type.
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import math
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Union

from . import vocabulary
from .errors import ErrorCode, KitError, quote
from .jsonio import Json, to_json


class HandlerStopped(Exception):
    """Raised by `Script.run` when its turn was cancelled during a scripted sleep: the handler
    stops there (feature `cancel`); the turn helper records `stopped` on its invocation."""


@dataclass(frozen=True)
class ReturnInstead:
    """From an `Errors` factory: the handler returns `value` instead of raising."""

    value: Any


ErrorFactory = Callable[[str], Union[BaseException, ReturnInstead]]
"""message → the exception to raise (or a ReturnInstead) for one raise kind."""


@dataclass(frozen=True)
class Errors:
    """How the harness's tools fail, one factory per raise kind (vocabulary.RAISE_KINDS).

    - `domain`: a refusal meant for the model (e.g. the harness's `ToolError`);
    - `transport`: a connection or service failure (e.g. `ConnectionError`);
    - `internal`: an unexpected exception (e.g. `RuntimeError`); its message holds a secret that
      must never reach the model.
    """

    domain: ErrorFactory
    transport: ErrorFactory
    internal: ErrorFactory

    def factory(self, kind: str) -> ErrorFactory:
        if kind not in vocabulary.RAISE_KINDS:
            raise KitError(ErrorCode.UNKNOWN_BEHAVIOUR, what="raise kind", keys=quote(kind),
                           known=", ".join(vocabulary.RAISE_KINDS))
        factory: ErrorFactory = getattr(self, kind)
        return factory


Present = Callable[[Any, str], Any]
"""(value, output kind) → what the handler returns to the harness; identity by default."""


def _identity(value: Any, kind: str) -> Any:
    return value


# ---- generated text ---------------------------------------------------------------------------


def measure(text: str, unit: str) -> int:
    """The size of `text` in `unit`: UTF-8 bytes or Unicode scalar values (code points)."""
    return len(text.encode("utf-8", "surrogatepass")) if unit == "bytes" else len(text)


def _gen_text(spec: Mapping[str, Json], unit: str) -> str:
    text: str = spec["text"]
    return text


def _gen_repeat(spec: Mapping[str, Json], unit: str) -> str:
    piece: str = spec["repeat"]
    return piece * (int(spec["size"]) // measure(piece, unit))


def _gen_lines(spec: Mapping[str, Json], unit: str) -> str:
    lines = spec["lines"]
    size, width, last = int(lines["size"]), int(lines["width"]), lines["last"]
    count = max(size - measure(last, unit), 0) // (width + 1)
    body = [f"{i % 1000000:06} ".ljust(width, "x") + "\n" for i in range(1, count + 1)]
    return "".join(body) + str(last)


def _gen_concat(spec: Mapping[str, Json], unit: str) -> str:
    return "".join(expand(part, unit) for part in spec["concat"])


GENERATORS: dict[str, Callable[[Mapping[str, Json], str], str]] = {
    "text": _gen_text,
    "repeat": _gen_repeat,
    "lines": _gen_lines,
    "concat": _gen_concat,
}
"""Generator kind → its expansion (run.schema.json#/$defs/gen)."""


def _kind(spec: Json, registry: Mapping[str, Any], what: str) -> str:
    if isinstance(spec, Mapping):
        for key in spec:
            if key in registry:
                return str(key)
    keys = sorted(spec) if isinstance(spec, Mapping) else spec
    raise KitError(ErrorCode.UNKNOWN_BEHAVIOUR, what=what, keys=quote(keys), known=", ".join(registry))


def expand(gen: Mapping[str, Json], unit: str) -> str:
    """The text a generator gives, every size already resolved by the runner, in `unit`."""
    text: str = GENERATORS[_kind(gen, GENERATORS, "generator")](gen, unit)
    return text


# ---- returned values --------------------------------------------------------------------------


def _out_text(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    return spec["text"]


def _out_json(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    return copy.deepcopy(spec["json"])


def _out_generate(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    return expand(spec["generate"], unit)


_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _out_non_finite(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    name = spec["non_finite"]
    if name not in _NON_FINITE:
        raise KitError(ErrorCode.UNKNOWN_BEHAVIOUR, what="non_finite value", keys=quote(name),
                       known=", ".join(_NON_FINITE))
    return _NON_FINITE[name]


def _out_echo_args(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    return to_json(args)


def _out_non_finite_in(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    """The structured value with a non-finite float set at each pointer (optional behaviour)."""
    inner = spec["non_finite_in"]
    value = copy.deepcopy(inner["value"])
    for pointer, name in inner["at"].items():
        number = _out_non_finite({"non_finite": name}, args, unit)
        if pointer == "":
            value = number
        else:
            set_pointer(value, pointer, number)
    return value


class Handle:
    """An object whose only state is private and which has no JSON form (`non_json` kind `opaque`).

    `__slots__` leaves it no `__dict__`, so encoders that serialise an object's attributes find
    nothing to write; its repr is Python's default, with a memory address in it.
    """

    __slots__ = ("_fd",)

    def __init__(self) -> None:
        self._fd = 7


def _non_json_value(kind: str) -> Any:
    if kind == "set":
        return {1, 2, 3}
    if kind == "bytes":
        return b"\x00\xffA"
    if kind == "date":
        return datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    if kind == "opaque":
        return Handle()
    raise KitError(ErrorCode.UNKNOWN_BEHAVIOUR, what="non_json kind", keys=quote(kind),
                   known="cycle, set, bytes, date, opaque")


def _out_non_json(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    """The structured value with Python's own non-JSON values placed inside it (optional behaviour).

    `set` is a set of 1, 2, 3; `bytes` the bytes 00 FF 41; `date` an aware datetime in UTC;
    `opaque` a `Handle`; `cycle` the returned value itself, so the dict or list contains itself.
    """
    inner = spec["non_json"]
    value = copy.deepcopy(inner["value"])
    cycles: list[str] = []
    for pointer, kind in inner["at"].items():
        if kind == "cycle":
            cycles.append(pointer)
        elif pointer == "":
            value = _non_json_value(kind)
        else:
            set_pointer(value, pointer, _non_json_value(kind))
    for pointer in cycles:
        if pointer == "" or not isinstance(value, (dict, list)):
            raise KitError(ErrorCode.BAD_POINTER, pointer=quote(pointer),
                           problem="a cycle goes inside an object or array value")
        set_pointer(value, pointer, value)
    return value


@dataclass(frozen=True)
class ContentBlocks:
    """A handler's multi-part answer (behaviour `content_blocks`): `blocks` in MCP's JSON form
    (`{"type": "text", "text"}`, `{"type": "image", "data", "mimeType"}`, `{"type": "resource",
    "resource": {"uri", "mimeType", "text" | "blob"}}`; with behaviours `audio_blocks` and
    `resource_link_blocks`, `{"type": "audio", "data", "mimeType"}` and `{"type": "resource_link",
    "uri", "name", …}`), in order. The adapter's `present` turns
    them into the harness's own multi-part result (an MCP `ImageContent`, its image type); they
    are never text the handler built."""

    blocks: list[dict[str, Json]]


@dataclass(frozen=True)
class McpResult:
    """A raw MCP `CallToolResult` (feature `mcp-client`): the MCP server the harness consumes sends
    `json` (`content`, optional `isError` and `structuredContent`) verbatim as its `tools/call`
    answer (PROTOCOL.md section 4e)."""

    json: dict[str, Json]


@dataclass(frozen=True)
class Stream:
    """A handler's output written in parts over time (behaviour `stream`): `parts` in order, each
    a text (`str`) or a wait in milliseconds (`int`). The adapter's `present` hands it to its
    harness's streaming mechanism — a generator tool, an async iterator, progress notifications —
    iterating `chunks()` on a thread or `achunks()` in an event loop, each of which waits where
    the case waits; it is never joined into one text by the handler (PROTOCOL.md section 4g)."""

    parts: tuple[Union[str, int], ...]

    def chunks(self) -> Iterator[str]:
        """The texts, in order, sleeping on this thread where the stream waits."""
        for part in self.parts:
            if isinstance(part, str):
                yield part
            else:
                time.sleep(part / 1000)

    async def achunks(self) -> AsyncIterator[str]:
        """The texts, in order, awaiting the event loop's timer where the stream waits."""
        for part in self.parts:
            if isinstance(part, str):
                yield part
            else:
                await asyncio.sleep(part / 1000)

    def text(self) -> str:
        """Every part joined: what a harness that read the whole stream in time holds."""
        return "".join(p for p in self.parts if isinstance(p, str))


_STREAM_PARTS = {"text": None, "generate": None, "sleep_ms": None}


def _out_stream(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    parts: list[Union[str, int]] = []
    steps = spec["stream"]
    for part in steps if isinstance(steps, list) else [steps]:
        kind = _kind(part, _STREAM_PARTS, "stream part")
        assert isinstance(part, Mapping)  # _kind found a key in it
        value = part[kind]
        if kind == "text":
            parts.append(str(value))
        elif kind == "generate" and isinstance(value, Mapping):
            parts.append(expand(value, unit))
        elif isinstance(value, int):
            parts.append(value)
        else:
            raise KitError(ErrorCode.UNKNOWN_BEHAVIOUR, what="stream part", keys=quote(value),
                           known=", ".join(_STREAM_PARTS))
    return Stream(tuple(parts))


def _out_content_blocks(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    return ContentBlocks(copy.deepcopy(list(spec["content_blocks"])))


def _out_mcp_result(spec: Mapping[str, Json], args: Any, unit: str) -> Any:
    return McpResult(copy.deepcopy(dict(spec["mcp_result"])))


OUTPUTS: dict[str, Callable[[Mapping[str, Json], Any, str], Any]] = {
    "text": _out_text,
    "json": _out_json,
    "generate": _out_generate,
    "non_finite": _out_non_finite,
    "echo_args": _out_echo_args,
    "non_finite_in": _out_non_finite_in,
    "non_json": _out_non_json,
    "content_blocks": _out_content_blocks,
    "mcp_result": _out_mcp_result,
    "stream": _out_stream,
}
"""Output kind → the value a handler returns (run.schema.json#/$defs/output)."""


TOOL_OPTIONS: tuple[str, ...] = ("output_schema",)
"""Optional behaviours that are tool fields, not scripts: `case.Tool` carries each for the adapter
to give its harness (`output_schema`: the tool's output schema, as MCP's `outputSchema`)."""

BLOCK_KINDS: tuple[str, ...] = ("audio_blocks", "resource_link_blocks")
"""Optional behaviours that are block kinds inside `content_blocks` and `mcp_result` (`audio`,
`resource_link`): the scripted handler hands every block over unchanged, so the kit carries them;
an adapter declares one when its `present` gives that kind to its harness and its reply reports
it (PROTOCOL.md section 4e)."""


def output_value(output: Mapping[str, Json], args: Any, unit: str) -> tuple[str, Any]:
    """(output kind, the Python value) for a scripted `return`."""
    kind = _kind(output, OUTPUTS, "output")
    return kind, OUTPUTS[kind](output, args, unit)


# ---- JSON pointers into the handler's own arguments -------------------------------------------


def _attr_name(model: Any, key: str) -> str:
    fields = getattr(type(model), "model_fields", {})
    for name, info in fields.items():
        if (getattr(info, "alias", None) or name) == key:
            return str(name)
    return key


def _child(node: Any, token: str, pointer: str) -> Any:
    try:
        if isinstance(node, dict):
            return node[token]
        if isinstance(node, list):
            return node[int(token)]
        return getattr(node, _attr_name(node, token))
    except (KeyError, IndexError, ValueError, AttributeError):
        raise KitError(ErrorCode.BAD_POINTER, pointer=quote(pointer), problem=f"no {quote(token)} on the way") from None


def set_pointer(doc: Any, pointer: str, value: Any) -> None:
    """Sets `value` at RFC 6901 `pointer` inside `doc`, in place (dicts, lists, pydantic models).

    The parent must exist; `-` or the length as the last array token appends.
    """
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    if not tokens:
        raise KitError(ErrorCode.BAD_POINTER, pointer=quote(pointer), problem="cannot replace the whole argument object")
    node = doc
    for token in tokens[:-1]:
        node = _child(node, token, pointer)
    last = tokens[-1]
    if isinstance(node, dict):
        node[last] = value
    elif isinstance(node, list):
        try:
            index = len(node) if last == "-" else int(last)
        except ValueError:
            raise KitError(ErrorCode.BAD_POINTER, pointer=quote(pointer), problem="not an array index") from None
        if index == len(node):
            node.append(value)
        elif 0 <= index < len(node):
            node[index] = value
        else:
            raise KitError(ErrorCode.BAD_POINTER, pointer=quote(pointer), problem="index out of range")
    else:
        setattr(node, _attr_name(node, last), value)


# ---- behaviour steps --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Sleep:
    ms: int
    then: Mapping[str, Json]


@dataclass(frozen=True)
class _Next:
    then: Mapping[str, Json]


@dataclass(frozen=True)
class _Done:
    kind: str
    value: Any


_Step = Union[_Sleep, _Next, _Done]


def _step_return(behavior: Mapping[str, Json], args: Any, script: Script) -> _Step:
    kind, value = output_value(behavior["return"], args, script.unit)
    return _Done(kind, value)


def _step_raise(behavior: Mapping[str, Json], args: Any, script: Script) -> _Step:
    spec = behavior["raise"]
    made = script.errors.factory(spec["kind"])(spec["message"])
    if isinstance(made, ReturnInstead):
        return _Done("raise", made.value)
    raise made


def _step_sleep(behavior: Mapping[str, Json], args: Any, script: Script) -> _Step:
    return _Sleep(int(behavior["sleep_ms"]), behavior["then"])


def _step_mutate(behavior: Mapping[str, Json], args: Any, script: Script) -> _Step:
    for pointer, value in behavior["mutate_args"]["set"].items():
        set_pointer(args, pointer, copy.deepcopy(value))
    return _Next(behavior["then"])


STEPS: dict[str, Callable[[Mapping[str, Json], Any, Script], _Step]] = {
    "return": _step_return,
    "raise": _step_raise,
    "sleep_ms": _step_sleep,
    "mutate_args": _step_mutate,
}
"""Behaviour kind → one step of it (run.schema.json#/$defs/behavior)."""


class Script:
    """One tool's scripted behaviour, performed against the arguments its handler received.

    `on_kit_error` is told about a KitError (a behaviour this kit cannot perform, a pointer that
    leads nowhere) before it is raised into the harness: such a failure is the adapter's, even if
    the harness turns the exception into an ordinary error result.
    """

    def __init__(self, behavior: Mapping[str, Json], unit: str, errors: Errors, present: Present | None = None,
                 on_kit_error: Callable[[KitError], None] | None = None) -> None:
        self.behavior = behavior
        self.unit = unit
        self.errors = errors
        self.present: Present = present or _identity
        self.on_kit_error = on_kit_error

    def _next(self, behavior: Mapping[str, Json], args: Any) -> _Step:
        try:
            return STEPS[_kind(behavior, STEPS, "behaviour")](behavior, args, self)
        except KitError as exc:
            if self.on_kit_error is not None:
                self.on_kit_error(exc)
            raise

    def _perform(self, args: Any) -> Generator[int, None, Any]:
        """The script as a generator: yields each sleep (ms), returns the handler's value."""
        behavior = self.behavior
        while True:
            step = self._next(behavior, args)
            if isinstance(step, _Done):
                return self.present(step.value, step.kind)
            if isinstance(step, _Sleep):
                yield step.ms
            behavior = step.then

    def run(self, args: Any, cancel: threading.Event | None = None) -> Any:
        """Performs the script synchronously (sleeps block); returns what the handler returns.

        `cancel`: the turn's cancellation as the harness signals it to a thread; a sleep ends
        when it is set, and the handler stops with `HandlerStopped`.
        """
        steps = self._perform(args)
        try:
            while True:
                ms = next(steps)
                if cancel is None:
                    time.sleep(ms / 1000)
                elif cancel.wait(ms / 1000):
                    raise HandlerStopped("the turn was cancelled")
        except StopIteration as done:
            return done.value

    async def run_async(self, args: Any) -> Any:
        """Performs the script in an async handler (sleeps yield to the event loop).

        A cancelled task raises `asyncio.CancelledError` in its sleep, which propagates.
        """
        steps = self._perform(args)
        try:
            while True:
                await asyncio.sleep(next(steps) / 1000)
        except StopIteration as done:
            return done.value


SyncHandler = Callable[..., Any]
AsyncHandler = Callable[..., Awaitable[Any]]
