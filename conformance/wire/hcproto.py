"""Protocol plumbing for the wire's agent driver (conformance/wire/agent.py, behaviours.py).

It was shared by this repository's Python adapters before the Python adapter kit
(conformance/kits/python) replaced it for them; the wire still uses it until its serve loop moves
onto the kit.

Why this module exists: every Python adapter must speak the same JSON lines (conformance/PROTOCOL.md)
and interpret the same scripted behaviours (docs/DESIGN.md, "Behaviours"). Keeping that here means
an adapter file holds only what is specific to its harness: how to register a tool, how to feed a
batch of calls, and how to read back what the model would see. The copyable, standalone version of
this plumbing is conformance/adapters/template-python/adapter.py; this module is not meant to be
copied.

Stdlib only, so it runs in any adapter's venv.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import sys
import time
import traceback
from typing import Any, Callable

PROTOCOL = 1


class Skip(Exception):
    """The case cannot be expressed faithfully in this harness; the message says why."""


class Unset:
    """Marks an optional argument the model did not send (a default that is never shown to anyone)."""

    _instance: "Unset | None" = None

    def __new__(cls) -> "Unset":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset()


# ---------------------------------------------------------------------------------------------
# The JSON-lines loop
# ---------------------------------------------------------------------------------------------


def _write(message: dict) -> None:
    # ensure_ascii: content may hold lone surrogates the harness produced; escapes keep stdout
    # valid UTF-8 and let the runner see (and count) them.
    line = json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def serve(hello: dict, run_case: Callable[[dict], dict]) -> None:
    """Answers `start`, `run` and `stop` on stdin/stdout until `stop` or end of input.

    `hello` is {"implementation": {...}, "capabilities": {...}}. `run_case(case)` returns
    {"results": [...], "invocations": [...], "history"?: [...]} or raises Skip.
    """
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        cmd = message.get("cmd")
        if cmd == "start":
            if message.get("protocol") != PROTOCOL:
                sys.exit(f"this adapter speaks protocol {PROTOCOL}, the runner asked for {message.get('protocol')!r}")
            _write({"protocol": PROTOCOL, **hello})
        elif cmd == "run":
            seq, case = message["seq"], message["case"]
            try:
                body = run_case(case)
            except Skip as skip:
                body = {"skip": str(skip)}
            except Exception as exc:  # the adapter itself failed: say so, keep serving
                traceback.print_exc(file=sys.stderr)
                body = {"error": f"adapter failed: {type(exc).__name__}: {exc}"[:2000]}
            _write({"seq": seq, "case": case["id"], **body})
        elif cmd == "stop":
            return
        else:
            print(f"hcproto: unknown command {cmd!r}", file=sys.stderr)


def log_harness_raise(call_id: Any, exc: BaseException) -> None:
    """A harness raised instead of producing a result: the model sees nothing for that call.

    The adapter reports no result for it (the runner then fails "one result per call"); the
    exception goes to stderr so a human reading the run can see what happened.
    """
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    first = " ".join(text.split()) or type(exc).__name__  # one line, so readers can match it
    print(f"harness raised: {first[:1000]} [for call {call_id!r}]", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# JSON helpers
# ---------------------------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    """A JSON-encodable copy of `value` for reports: models dumped, UNSET dropped, NaN/inf spelled out.

    Used for `native` and for the arguments a handler received. Non-finite floats become
    {"$non_finite": "nan"}; anything else unknown becomes its repr.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$non_finite": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items() if v is not UNSET}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model, without importing pydantic here
        try:
            return jsonable(dump(mode="python", by_alias=True, warnings=False))
        except Exception:
            pass
    return repr(value)


# ---------------------------------------------------------------------------------------------
# Scripted behaviours (docs/DESIGN.md "Behaviours")
# ---------------------------------------------------------------------------------------------


def cap_unit(case: dict, declared_unit: str | None = None) -> str:
    """The unit generated sizes are measured in: the case's cap unit, else the harness's, else chars."""
    cap = (case.get("config") or {}).get("cap") or {}
    return cap.get("unit") or declared_unit or "chars"


def measure(text: str, unit: str) -> int:
    return len(text.encode("utf-8", "surrogatepass")) if unit == "bytes" else len(text)


def expand(gen: dict, unit: str) -> str:
    """Materialises a generated output whose sizes the runner has already resolved to integers."""
    if "text" in gen:
        return gen["text"]
    if "repeat" in gen:
        each = measure(gen["repeat"], unit)
        return gen["repeat"] * (int(gen["size"]) // each)
    if "lines" in gen:
        spec = gen["lines"]
        size, width, last = int(spec["size"]), int(spec["width"]), spec["last"]
        body = max(size - measure(last, unit), 0) // (width + 1)
        parts = [f"{i % 1000000:06} ".ljust(width, "x") + "\n" for i in range(1, body + 1)]
        return "".join(parts) + last
    if "concat" in gen:
        return "".join(expand(part, unit) for part in gen["concat"])
    raise ValueError(f"unknown generator {sorted(gen)}")


def output_value(output: dict, args: Any, unit: str) -> Any:
    """The Python value a handler returns for a scripted `return`."""
    if "text" in output:
        return output["text"]
    if "json" in output:
        return copy.deepcopy(output["json"])
    if "generate" in output:
        return expand(output["generate"], unit)
    if "non_finite" in output:
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[output["non_finite"]]
    if "echo_args" in output:
        return jsonable(args)
    raise ValueError(f"unknown output {sorted(output)}")


def _child(node: Any, token: str) -> Any:
    if isinstance(node, dict):
        return node[token]
    if isinstance(node, list):
        return node[int(token)]
    return getattr(node, _attr_name(node, token))


def _attr_name(model: Any, key: str) -> str:
    fields = getattr(type(model), "model_fields", {})
    for name, info in fields.items():
        if (info.alias or name) == key:
            return name
    return key


def set_pointer(doc: Any, pointer: str, value: Any) -> None:
    """Sets `value` at JSON pointer `pointer` inside `doc`, in place (dicts, lists, pydantic models)."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    if not tokens:
        raise ValueError("mutate_args cannot replace the whole argument object")
    node = doc
    for token in tokens[:-1]:
        node = _child(node, token)
    last = tokens[-1]
    if isinstance(node, dict):
        node[last] = value
    elif isinstance(node, list):
        index = len(node) if last == "-" else int(last)
        if index == len(node):
            node.append(value)
        else:
            node[index] = value
    else:
        setattr(node, _attr_name(node, last), value)


class Raisers:
    """How a harness spells the three kinds of error a handler can raise (its own idiom)."""

    def __init__(self, domain: Callable[[str], BaseException], transport: Callable[[str], BaseException],
                 internal: Callable[[str], BaseException]):
        self.by_kind = {"domain": domain, "transport": transport, "internal": internal}

    def make(self, raise_spec: dict) -> BaseException:
        return self.by_kind[raise_spec["kind"]](raise_spec["message"])


def _step(behavior: dict, args: Any, unit: str, raisers: Raisers) -> tuple[str, Any]:
    """One step of a behaviour: ("sleep", (ms, then)) or ("done", value); raises for `raise`."""
    if "sleep_ms" in behavior:
        return "sleep", (behavior["sleep_ms"], behavior["then"])
    if "mutate_args" in behavior:
        for pointer, value in behavior["mutate_args"]["set"].items():
            set_pointer(args, pointer, copy.deepcopy(value))
        return "next", behavior["then"]
    if "raise" in behavior:
        raise raisers.make(behavior["raise"])
    if "return" in behavior:
        return "done", output_value(behavior["return"], args, unit)
    raise ValueError(f"unknown behaviour {sorted(behavior)}")


async def perform_async(behavior: dict, args: Any, unit: str, raisers: Raisers) -> Any:
    """Runs a scripted behaviour inside an async handler; `args` is what the handler received."""
    while True:
        kind, value = _step(behavior, args, unit, raisers)
        if kind == "done":
            return value
        if kind == "sleep":
            await asyncio.sleep(value[0] / 1000)
            behavior = value[1]
        else:
            behavior = value


def perform_sync(behavior: dict, args: Any, unit: str, raisers: Raisers) -> Any:
    """Runs a scripted behaviour inside a synchronous handler."""
    while True:
        kind, value = _step(behavior, args, unit, raisers)
        if kind == "done":
            return value
        if kind == "sleep":
            time.sleep(value[0] / 1000)
            behavior = value[1]
        else:
            behavior = value


class Invocations:
    """The log of handler runs, with the arguments copied (as JSON) on entry."""

    def __init__(self) -> None:
        self.entries: list[dict] = []

    def record(self, tool: str, tool_use_id: Any, args: Any) -> None:
        entry = {"tool": tool, "args": jsonable(copy.deepcopy(args))}
        if tool_use_id is not None:
            entry["tool_use_id"] = tool_use_id
        self.entries.append(entry)


def text_of_blocks(blocks: list[dict]) -> str:
    """Text blocks concatenated in order (the protocol's `content`)."""
    return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
