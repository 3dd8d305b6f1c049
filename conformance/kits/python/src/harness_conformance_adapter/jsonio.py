"""Strict JSON both ways, and the JSON form of whatever a harness hands back.

Why this module exists: Python's `json` module is lax in exactly the places this suite probes.
It accepts and emits `NaN`/`Infinity` (not JSON), keeps the last of duplicate keys silently,
refuses integers of more than 4300 digits in both directions (`sys.int_max_str_digits`, a
process-wide setting the kit must not change under the harness it tests), and, unless asked,
writes raw lone surrogates that are not UTF-8. Every protocol line the kit reads or writes goes
through `loads`/`dumps` here:

- `loads` refuses `NaN`, `Infinity`, `-Infinity` and duplicate keys (the runner never sends them;
  PROTOCOL.md section 1.5: decoding is strict on both sides), and decodes integers of up to
  `MAX_INT_DIGITS` digits (past Python's own limit; a longer one is refused, because converting
  it costs time quadratic in its length: a million digits took over a minute);
- `dumps` refuses non-finite floats and non-string keys, writes integers of any length, and
  escapes everything outside ASCII, so a lone surrogate the harness produced reaches the runner as
  `\\ud800` (the runner counts it as the harness's fault; PROTOCOL.md section 1.7).

`to_json` turns what a harness produced (pydantic models, tuples, non-finite floats, ...) into a
JSON value for reports (`native`, invocation `args`); it never fails.
"""

from __future__ import annotations

import dataclasses
import decimal
import json
import math
from collections.abc import Mapping
from typing import Any

from .errors import ErrorCode, KitError

Json = Any
"""A decoded JSON value: dict[str, Json], list[Json], str, int, float, bool or None."""

# Python refuses int(str) and str(int) beyond this many digits; Decimal converts without the limit.
_SAFE_DIGITS = 4000

MAX_INT_DIGITS = 10_000
"""The longest integer `loads` decodes, in digits. The runner sends none longer (it refuses
numbers a double cannot hold), and the conversion of a longer one is quadratic in its length."""

_encode_string = json.encoder.encode_basestring_ascii


def _parse_int(text: str) -> int:
    if len(text) <= _SAFE_DIGITS:
        return int(text)
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise KitError(ErrorCode.INVALID_JSON,
                       problem=f"an integer of {digits} digits, over the kit's limit of {MAX_INT_DIGITS}")
    return int(decimal.Decimal(text))


def _refuse_constant(name: str) -> Any:
    raise KitError(ErrorCode.INVALID_JSON, problem=f"{name} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise KitError(ErrorCode.INVALID_JSON, problem=f"duplicate key {json.dumps(key)[:200]}")
        out[key] = value
    return out


def loads(text: str | bytes) -> Json:
    """Decodes one strict JSON text (see the module doc); raises KitError(INVALID_JSON)."""
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_refuse_constant,
                          object_pairs_hook=_no_duplicates)
    except KitError:
        raise
    except (ValueError, RecursionError) as exc:
        raise KitError(ErrorCode.INVALID_JSON, problem=str(exc)[:300]) from None


def _int_text(value: int) -> str:
    if -(10**_SAFE_DIGITS) < value < 10**_SAFE_DIGITS:
        return int.__repr__(value)
    return str(decimal.Decimal(value))


def _encode(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_encode_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(_int_text(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise KitError(ErrorCode.UNENCODABLE, problem=f"the float {value!r} (JSON has no NaN or Infinity)")
        out.append(float.__repr__(value))
    elif isinstance(value, Mapping):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise KitError(ErrorCode.UNENCODABLE, problem=f"the object key {key!r} is not a string")
            if i:
                out.append(",")
            out.append(_encode_string(key))
            out.append(":")
            _encode(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise KitError(ErrorCode.UNENCODABLE, problem=f"a {type(value).__name__} is not a JSON value")


def dumps(value: Json) -> str:
    """One line of strict, ASCII-only JSON (see the module doc); raises KitError(UNENCODABLE)."""
    out: list[str] = []
    _encode(value, out)
    return "".join(out)


class Sentinel:
    """A named marker value, compared by identity (`is`); a copy of it is itself."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __copy__(self) -> Sentinel:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Sentinel:
        return self


UNSET: Any = Sentinel("UNSET")
"""A default for an argument the model did not send: never shown, dropped by `to_json`."""


def non_finite_name(value: float) -> str:
    """'nan', 'inf' or '-inf' for a non-finite float."""
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def to_json(value: Any, _path: frozenset[int] = frozenset()) -> Json:
    """A JSON value for a report: models dumped, UNSET dropped, non-finite floats spelled out.

    Non-finite floats become {"$non_finite": "nan" | "inf" | "-inf"}; dataclasses become objects;
    pydantic models (anything with `model_dump`) are dumped by alias; a container met again inside
    itself (a handler's cyclic output the harness kept) becomes "$cycle"; anything else becomes
    its repr. Never raises.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$non_finite": non_finite_name(value)}
    if id(value) in _path:
        return "$cycle"
    inner = _path | {id(value)}
    if isinstance(value, Mapping):
        return {str(k): to_json(v, inner) for k, v in value.items() if v is not UNSET}
    if isinstance(value, (list, tuple)):
        return [to_json(v, inner) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model, without importing pydantic
        try:
            return to_json(dump(mode="python", by_alias=True, warnings=False), inner)
        except Exception:  # noqa: BLE001 - a report must never fail; fall back to repr
            pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, inner)
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - a report must never fail
        return f"<{type(value).__name__}>"
