"""Typed, read-only views of one case as the runner sends it (run.schema.json#/$defs/case).

Why this module exists: the wire case is nested JSON where absence carries meaning (an absent
`input` differs from `"input": null`; an absent `deadline_ms` means the harness's own default).
These views name every field once, keep absence visible (`MISSING`), and leave the raw JSON at
hand (`.raw`) for fields a newer protocol adds before this kit models them. They never change
the case: a harness must receive exactly what the case says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .errors import ErrorCode, KitError
from .jsonio import Json, Sentinel


MISSING: Any = Sentinel("MISSING")
"""A field the case leaves out (distinct from JSON null)."""

CallForm = Literal["structured", "arguments_text", "raw"]


def _malformed(what: str, problem: str) -> KitError:
    return KitError(ErrorCode.MALFORMED_MESSAGE, what=what, problem=problem)


def _object(value: Json, what: str) -> Mapping[str, Json]:
    if not isinstance(value, Mapping):
        raise _malformed(what, "not a JSON object")
    return value


@dataclass(frozen=True)
class Tool:
    """One tool of the case: register it in the harness exactly as given."""

    name: str
    description: str
    input_schema: Mapping[str, Json]
    behavior: Mapping[str, Json]
    policy: Mapping[str, Json] | None
    raw: Mapping[str, Json]
    output_schema: Mapping[str, Json] | bool | None = None
    """The JSON Schema its structured results must match (behaviour `output_schema`), or None."""

    @staticmethod
    def parse(raw: Json) -> Tool:
        raw = _object(raw, "tool")
        for key in ("name", "input_schema", "behavior"):
            if key not in raw:
                raise _malformed("tool", f"missing {key}")
        if not isinstance(raw["name"], str):
            raise _malformed("tool", "name is not a string")
        policy = raw.get("policy")
        return Tool(name=raw["name"], description=raw.get("description", ""),
                    input_schema=_object(raw["input_schema"], "tool input_schema"),
                    behavior=_object(raw["behavior"], "tool behavior"),
                    policy=None if policy is None else _object(policy, "tool policy"), raw=raw,
                    output_schema=raw.get("output_schema"))


@dataclass(frozen=True)
class Call:
    """One call of the turn, in the form the model sent it.

    `id`, `name` and `input` are MISSING when the call leaves them out; they may be of any JSON
    type (malformed-call cases). `arguments_text` and `raw` are set for those forms only.
    """

    form: CallForm
    id: Json
    name: Json
    input: Json
    arguments_text: str | None
    raw_text: str | None
    raw: Mapping[str, Json]

    @staticmethod
    def parse(raw: Json) -> Call:
        raw = _object(raw, "call")
        form: CallForm = "raw" if "raw" in raw else ("arguments_text" if "arguments_text" in raw else "structured")
        return Call(form=form, id=raw.get("id", MISSING), name=raw.get("name", MISSING),
                    input=raw.get("input", MISSING),
                    arguments_text=raw.get("arguments_text") if form == "arguments_text" else None,
                    raw_text=raw.get("raw") if form == "raw" else None, raw=raw)

    def get(self, key: str, default: Json = None) -> Json:
        """A field of the call as sent, `default` when absent (dict.get on the raw call)."""
        return self.raw.get(key, default)

    @property
    def id_or_none(self) -> Json:
        """The call's id, with an absent id as None (what most harnesses' call types hold)."""
        return None if self.id is MISSING else self.id

    def to_json(self) -> dict[str, Json]:
        """The call as the runner sent it (for a harness that takes the raw block)."""
        return dict(self.raw)


@dataclass(frozen=True)
class Config:
    """The case's configuration; each field None when absent (the harness's own default)."""

    cap_limit: int | None
    cap_unit: str | None
    cap_strategy: str | None
    deadline_ms: int | None
    # The model provider's image limits (feature `image-limits`, PROTOCOL.md section 4h):
    # `max_width`, `max_height` (pixels), `max_base64_bytes`, each optional.
    image_limit: Mapping[str, Json] | None = None
    # The room left in the model's context window, in the cap's unit (feature `context-cap`,
    # PROTOCOL.md section 4l): cap each result at the smaller of the cap and this.
    cap_remaining: int | None = None

    @staticmethod
    def parse(raw: Json) -> Config:
        raw = _object(raw if raw is not None else {}, "config")
        cap = _object(raw.get("cap") or {}, "config cap")
        image_limit = raw.get("image_limit")
        return Config(cap_limit=cap.get("limit"), cap_unit=cap.get("unit"), cap_strategy=cap.get("strategy"),
                      deadline_ms=raw.get("deadline_ms"), cap_remaining=cap.get("remaining"),
                      image_limit=_object(image_limit, "config image_limit") if image_limit is not None else None)


@dataclass(frozen=True)
class Case:
    """One case: build these tools in a fresh harness, feed these calls as one turn.

    `context` and `security` are the optional security fields (PROTOCOL.md section 4a), raw.
    `offered` names the tools this turn offers the model when it offers only some of them
    (feature `offered-tools`); `None` means every tool. A harness with per-turn tool subsets
    offers exactly these and must refuse a call to any other tool like an unknown one.
    `stop_reason` is why the model's turn ended when the case is about it (feature
    `stop-reason`): `tool_use`, `end_turn` or `max_tokens` (cut off by the output limit: the
    last call may be incomplete and must not run); `None` otherwise.
    `cancel_after_ms` (feature `cancel`): cancel the turn this many ms after handing it to the
    harness, the way its user would; `parallel_calls` is `False` (feature `serial-calls`) when
    the harness is to run with parallel tool calls disabled; both `None` otherwise.
    """

    id: str
    config: Config
    tools: Sequence[Tool]
    calls: Sequence[Call]
    context: Mapping[str, Json] | None
    security: Mapping[str, Json] | None
    raw: Mapping[str, Json]
    offered: Sequence[str] | None = None
    stop_reason: str | None = None
    cancel_after_ms: int | None = None
    parallel_calls: bool | None = None

    @staticmethod
    def parse(raw: Json) -> Case:
        raw = _object(raw, "case")
        if not isinstance(raw.get("id"), str):
            raise _malformed("case", "id is missing or not a string")
        for key in ("tools", "calls"):
            if not isinstance(raw.get(key), list):
                raise _malformed("case", f"{key} is missing or not an array")
        offered = raw.get("offered")
        if offered is not None and not (isinstance(offered, list)
                                        and all(isinstance(n, str) for n in offered)):
            raise _malformed("case", "offered is not an array of tool names")
        stop_reason = raw.get("stop_reason")
        if stop_reason is not None and stop_reason not in ("tool_use", "end_turn", "max_tokens"):
            raise _malformed("case", "stop_reason is not tool_use, end_turn or max_tokens")
        cancel_after_ms = raw.get("cancel_after_ms")
        if cancel_after_ms is not None and not (isinstance(cancel_after_ms, int)
                                                and not isinstance(cancel_after_ms, bool)
                                                and cancel_after_ms >= 0):
            raise _malformed("case", "cancel_after_ms is not a non-negative integer")
        parallel_calls = raw.get("parallel_calls")
        if parallel_calls is not None and not isinstance(parallel_calls, bool):
            raise _malformed("case", "parallel_calls is not a boolean")
        return Case(id=raw["id"], config=Config.parse(raw.get("config")),
                    tools=tuple(Tool.parse(t) for t in raw["tools"]),
                    calls=tuple(Call.parse(c) for c in raw["calls"]),
                    context=raw.get("context"), security=raw.get("security"), raw=raw,
                    offered=None if offered is None else tuple(offered), stop_reason=stop_reason,
                    cancel_after_ms=cancel_after_ms, parallel_calls=parallel_calls)

    def tool(self, name: str) -> Tool | None:
        """The case's tool of that name, if any."""
        return next((t for t in self.tools if t.name == name), None)

    def offered_tools(self) -> tuple[Tool, ...]:
        """The tools this turn offers the model: all of them unless `offered` names a subset."""
        if self.offered is None:
            return tuple(self.tools)
        return tuple(t for t in self.tools if t.name in self.offered)
