"""What a harness is and can do, typed, and the hello built from it.

Why this module exists: the hello is where an adapter is most tempted to hope rather than declare
(PROTOCOL.md section 2: a capability declared but missing shows up as FAILs; one not declared is an
honest SKIP). Declaring it through these types means a misspelt unit, strategy, outcome class,
call form or feature is refused when the adapter starts, with the field named, instead of being
silently ignored by the runner. Every word is checked against `vocabulary` (generated from the
protocol's schemas), so this module holds shapes, not word lists.

To add a capability field: add it to `Capabilities` (a typed field, default = the protocol's
conservative value), write it in `Capabilities.to_json`, check it in `Capabilities.validate`.
`generate_vocabulary.py` regenerates `CAPABILITY_FIELDS`; the kit's tests fail until every field
the schema lists is modelled here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from . import vocabulary
from .errors import ErrorCode, KitError, quote
from .jsonio import Json

Unit = Literal["bytes", "chars", "lines", "tokens"]
"""What a cap counts: UTF-8 bytes, Unicode scalar values, lines or estimated tokens
(vocabulary.CAP_UNITS; tokens need a `TokenEstimator`)."""


def _capability(field_name: str, problem: str) -> KitError:
    return KitError(ErrorCode.INVALID_CAPABILITY, field=field_name, problem=problem)


def _one_of(field_name: str, value: object, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise _capability(field_name, f"{quote(value)} is not one of {', '.join(allowed)}")


def _unique(field_name: str, values: Sequence[str]) -> None:
    if len(set(values)) != len(values):
        raise _capability(field_name, "lists a value twice")


@dataclass(frozen=True)
class Implementation:
    """The harness (not the adapter): its name, language, version, and optional links the matrix
    site shows: its homepage, its source repository and its issue tracker."""

    name: str
    language: str
    version: str
    homepage: str | None = None
    source: str | None = None
    issues: str | None = None

    def validate(self) -> None:
        for name in ("name", "language", "version"):
            value = getattr(self, name)
            if not isinstance(value, str) or (name != "version" and not value):
                raise KitError(ErrorCode.INVALID_IMPLEMENTATION, field=name, problem="must be a non-empty string")
        for name in ("homepage", "source", "issues"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise KitError(ErrorCode.INVALID_IMPLEMENTATION, field=name, problem="must be a string")

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"name": self.name, "language": self.language, "version": self.version}
        for name in ("homepage", "source", "issues"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True)
class TokenEstimator:
    """How a token cap counts tokens (PROTOCOL.md 4l): `ceil(size / divisor)`, the size in UTF-8
    bytes (`of="bytes"`) or Unicode scalar values (`of="chars"`). Generated outputs of a token case
    arrive sized in `of`'s unit."""

    of: Literal["bytes", "chars"]
    divisor: int

    def validate(self) -> None:
        _one_of("cap.estimator.of", self.of, ("bytes", "chars"))
        if isinstance(self.divisor, bool) or not isinstance(self.divisor, int) or self.divisor < 1:
            raise _capability("cap.estimator.divisor", f"{quote(self.divisor)} is not a positive integer")

    def to_json(self) -> dict[str, Json]:
        return {"of": self.of, "divisor": self.divisor}


@dataclass(frozen=True)
class Cap:
    """The harness's output cap: the unit and limit it uses by default, and what a case may change.

    `strategies` lists the strategies the harness has (`head_tail`, `head_only`, `reject`,
    `spill`); the first is its default. `configurable`: a case may set the limit and the unit
    (bytes, chars, and those in `units`), and pick one of `strategies`. `units`: the units a
    configurable cap takes besides bytes and chars (`lines`, `tokens`). `estimator`: how tokens are
    counted, required with the unit `tokens` (and only with it).
    """

    unit: Unit
    limit: int
    strategies: Sequence[str] = ("head_tail",)
    configurable: bool = False
    units: Sequence[str] = ()
    estimator: TokenEstimator | None = None

    def validate(self) -> None:
        _one_of("cap.unit", self.unit, vocabulary.CAP_UNITS)
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise _capability("cap.limit", f"{quote(self.limit)} is not a positive integer")
        if not self.strategies:
            raise _capability("cap.strategies", "must list at least one strategy (the first is the default)")
        for strategy in self.strategies:
            _one_of("cap.strategies", strategy, vocabulary.CAP_STRATEGIES)
        _unique("cap.strategies", self.strategies)
        for unit in self.units:
            _one_of("cap.units", unit, ("lines", "tokens"))
        _unique("cap.units", self.units)
        tokens = self.unit == "tokens" or "tokens" in self.units
        if tokens and self.estimator is None:
            raise _capability("cap.estimator", "the unit tokens needs an estimator")
        if self.estimator is not None:
            if not tokens:
                raise _capability("cap.estimator", "declared without the unit tokens")
            self.estimator.validate()

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"unit": self.unit, "limit": self.limit,
                                "configurable": self.configurable,
                                "strategies": list(self.strategies)}
        if self.units:
            out["units"] = list(self.units)
        if self.estimator is not None:
            out["estimator"] = self.estimator.to_json()
        return out


@dataclass(frozen=True)
class Wrapper:
    """The markers a harness frames every result's content in (PROTOCOL.md 4l; SPEC.md WRAP-1):
    the content is `open` + the output + `close`, separators included. `escapes`: the (from, to)
    rewrites it applies to outputs before capping so a copy of a marker loses its form; or
    `{nonce}` in both markers, the nonce reported as each result's `wrapper_nonce`."""

    open: str
    close: str
    escapes: Sequence[tuple[str, str]] = ()

    def validate(self) -> None:
        for name in ("open", "close"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise _capability(f"wrapper.{name}", "must be a non-empty string")
        for source, target in self.escapes:
            if not source or source in target:
                raise _capability("wrapper.escapes", f"{quote(source)} → {quote(target)}: from must be non-empty and not in to")

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"open": self.open, "close": self.close}
        if self.escapes:
            out["escapes"] = [{"from": s, "to": t} for s, t in self.escapes]
        return out


@dataclass(frozen=True)
class Deadline:
    """Handler deadlines: whether a case may set one, and the harness's default if it has one."""

    configurable: bool
    default_ms: int | None = None

    def validate(self) -> None:
        if self.default_ms is not None and (isinstance(self.default_ms, bool) or not isinstance(self.default_ms, int)
                                            or self.default_ms < 0):
            raise _capability("deadline.default_ms", f"{quote(self.default_ms)} is not a non-negative integer")

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"configurable": self.configurable}
        if self.default_ms is not None:
            out["default_ms"] = self.default_ms
        return out


@dataclass(frozen=True)
class Capabilities:
    """What the harness can do (PROTOCOL.md section 2). Every default is the conservative value.

    - `cap`: the output cap, or None for a harness with none (cap cases then FAIL, by design);
    - `codes`: suite outcome class (vocabulary.OUTCOME_CLASSES) → the harness's own machine code;
    - `retryability`: results say whether retrying can help;
    - `deadline`: handler deadlines, or None;
    - `keywords`: the JSON Schema keywords the adapter gives its harness faithfully;
    - `call_forms`: vocabulary.CALL_FORMS the harness accepts;
    - `parallel`: a turn's calls reach the harness as one batch;
    - `history`: replies carry the calls as the harness's transcript keeps them;
    - `features`: optional feature sets (PROTOCOL.md section 4a);
    - `folds`: outcome classes the harness does not tell apart → the class it answers them as
      (which must be in `codes`);
    - `behaviors`: scripted behaviours beyond the base set that the adapter runs
      (vocabulary.OPTIONAL_BEHAVIOURS; this kit performs all of them, but only the adapter knows
      whether its harness can carry the result faithfully, so nothing is declared by default);
    - `call_ids`: the harness receives the model's tool-use ids and answers with them; False for a
      harness family that never sees them (an MCP server: its host pairs results with calls), so
      the runner skips cases about ids and does not run `tool_use_id` checks;
    - `dialect`: the model provider's request format the harness's results go into
      (vocabulary.DIALECTS), or None; when named, every result is judged by that provider's
      acceptance rules (PROTOCOL.md section 4i);
    - `wrapper`: the markers the harness frames results in, or None (PROTOCOL.md 4l).
    """

    cap: Cap | None = None
    codes: Mapping[str, str] = field(default_factory=dict)
    retryability: bool = False
    deadline: Deadline | None = None
    keywords: Sequence[str] = ()
    call_forms: Sequence[str] = ("structured",)
    parallel: bool = False
    history: bool = False
    features: Sequence[str] = ()
    folds: Mapping[str, str] = field(default_factory=dict)
    behaviors: Sequence[str] = ()
    call_ids: bool = True
    dialect: str | None = None
    wrapper: Wrapper | None = None

    def validate(self) -> None:
        if self.cap is not None:
            self.cap.validate()
        for outcome, code in self.codes.items():
            _one_of("codes", outcome, vocabulary.OUTCOME_CLASSES)
            if not isinstance(code, str):
                raise _capability(f"codes.{outcome}", f"{quote(code)} is not a string")
        if self.deadline is not None:
            self.deadline.validate()
        for keyword in self.keywords:
            if vocabulary.KEYWORDS is not None:
                _one_of("keywords", keyword, vocabulary.KEYWORDS)
            elif not isinstance(keyword, str) or not keyword:
                raise _capability("keywords", f"{quote(keyword)} is not a keyword name")
        _unique("keywords", self.keywords)
        for form in self.call_forms:
            _one_of("call_forms", form, vocabulary.CALL_FORMS)
        _unique("call_forms", self.call_forms)
        for feature in self.features:
            if vocabulary.FEATURES is not None:
                _one_of("features", feature, vocabulary.FEATURES)
            elif not (isinstance(feature, str) and re.fullmatch(vocabulary.FEATURE_PATTERN or ".+", feature)):
                raise _capability("features", f"{quote(feature)} is not spelt {vocabulary.FEATURE_PATTERN}")
        _unique("features", self.features)
        for folded, target in self.folds.items():
            _one_of("folds", folded, vocabulary.OUTCOME_CLASSES)
            _one_of(f"folds.{folded}", target, vocabulary.OUTCOME_CLASSES)
            if target not in self.codes:
                raise _capability(f"folds.{folded}", f"{quote(target)} has no code in codes")
        for behavior in self.behaviors:
            _one_of("behaviors", behavior, vocabulary.OPTIONAL_BEHAVIOURS)
        _unique("behaviors", self.behaviors)
        if self.wrapper is not None:
            self.wrapper.validate()
        for flag in ("retryability", "parallel", "history", "call_ids"):
            if not isinstance(getattr(self, flag), bool):
                raise _capability(flag, "must be true or false")
        if self.dialect is not None:
            _one_of("dialect", self.dialect, vocabulary.DIALECTS)

    def to_json(self) -> dict[str, Json]:
        """The hello's `capabilities` object. Written in full: no reader has to know the defaults."""
        out: dict[str, Json] = {"cap": None if self.cap is None else self.cap.to_json()}
        if self.codes:
            out["codes"] = dict(self.codes)
        out["retryability"] = self.retryability
        if self.deadline is not None:
            out["deadline"] = self.deadline.to_json()
        out["keywords"] = list(self.keywords)
        out["call_forms"] = list(self.call_forms)
        out["parallel"] = self.parallel
        out["history"] = self.history
        if self.features:
            out["features"] = list(self.features)
        if self.folds:
            out["folds"] = dict(self.folds)
        if self.behaviors:
            out["behaviors"] = list(self.behaviors)
        if not self.call_ids:  # absent means true: the hellos of adapters written before it stay as they were
            out["call_ids"] = False
        if self.dialect is not None:
            out["dialect"] = self.dialect
        if self.wrapper is not None:
            out["wrapper"] = self.wrapper.to_json()
        return out


def hello(implementation: Implementation, capabilities: Capabilities) -> dict[str, Json]:
    """The validated hello line (raises KitError naming the first wrong field)."""
    implementation.validate()
    capabilities.validate()
    return {"protocol": vocabulary.PROTOCOL_VERSION, "implementation": implementation.to_json(),
            "capabilities": capabilities.to_json()}
