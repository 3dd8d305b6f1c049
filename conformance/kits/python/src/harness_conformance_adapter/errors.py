"""The kit's own errors: a stable code per kind, every message composed in one place.

Why this module exists: an adapter author (or the pytest plugin) must be able to tell "my hello is
wrong" from "the runner sent something odd" from "this case cannot be expressed" without parsing
prose. Each error carries a `code` (a stable string: API, never renamed or reused) and the details
that went into its message; `str(error)` is composed by `message()` below, nowhere else.

Two exceptions are not errors of the kit but decisions of the adapter, and live in `turn.py`:
`Skip` (the harness cannot express this case) and an ordinary exception escaping the author's code
(the adapter failed: the runner gets `error`).
"""

from __future__ import annotations

import enum
from typing import Any


class ErrorCode(str, enum.Enum):
    """Every kind of kit error. The value is the stable code; new kinds may be added."""

    INVALID_CAPABILITY = "invalid_capability"
    """The hello declares a capability outside the protocol's vocabulary, or of the wrong shape."""
    INVALID_IMPLEMENTATION = "invalid_implementation"
    """The hello's implementation description is incomplete or of the wrong shape."""
    INVALID_JSON = "invalid_json"
    """A protocol line is not strict JSON (NaN, Infinity, duplicate keys, bad syntax)."""
    UNENCODABLE = "unencodable"
    """A value the kit was asked to write has no strict JSON form (NaN, a non-string key, ...)."""
    PROTOCOL_MISMATCH = "protocol_mismatch"
    """The runner speaks another protocol version."""
    UNKNOWN_COMMAND = "unknown_command"
    """The runner sent a command this kit does not know."""
    MALFORMED_MESSAGE = "malformed_message"
    """A runner message lacks a field or has one of the wrong type."""
    UNKNOWN_BEHAVIOUR = "unknown_behaviour"
    """A case scripts a behaviour, output or generator this kit version does not implement."""
    BAD_POINTER = "bad_pointer"
    """A `mutate_args` pointer does not lead into the handler's arguments."""
    BAD_RESULT = "bad_result"
    """The adapter reported a result of the wrong shape (content not a string, ...)."""
    BAD_ADAPTER_SPEC = "bad_adapter_spec"
    """A `module:attribute` adapter spec does not name an `Adapter`."""
    RUNNER_NOT_FOUND = "runner_not_found"
    """The pytest plugin cannot find the `harness-conformance` binary."""
    RUNNER_FAILED = "runner_failed"
    """The runner binary exited without a usable report."""


_MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.INVALID_CAPABILITY: "capability {field}: {problem}",
    ErrorCode.INVALID_IMPLEMENTATION: "implementation {field}: {problem}",
    ErrorCode.INVALID_JSON: "not strict JSON: {problem}",
    ErrorCode.UNENCODABLE: "cannot be written as strict JSON: {problem}",
    ErrorCode.PROTOCOL_MISMATCH: "this adapter speaks protocol {ours}, the runner asked for {theirs}",
    ErrorCode.UNKNOWN_COMMAND: "unknown command {cmd}",
    ErrorCode.MALFORMED_MESSAGE: "malformed {what}: {problem}",
    ErrorCode.UNKNOWN_BEHAVIOUR: "unknown {what} {keys}: this kit implements {known}",
    ErrorCode.BAD_POINTER: "mutate_args pointer {pointer}: {problem}",
    ErrorCode.BAD_RESULT: "result {field}: {problem}",
    ErrorCode.BAD_ADAPTER_SPEC: "adapter spec {spec}: {problem}",
    ErrorCode.RUNNER_NOT_FOUND: "cannot find the harness-conformance runner: {problem}",
    ErrorCode.RUNNER_FAILED: "the runner failed: {problem}",
}

_QUOTE_LIMIT = 200


def quote(value: Any, limit: int = _QUOTE_LIMIT) -> str:
    """A bounded, escaped rendering of a value for a message (never a raw multi-line string)."""
    text = ascii(value) if isinstance(value, str) else ascii(repr(value))[1:-1]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def message(code: ErrorCode, details: dict[str, Any]) -> str:
    """The one place error text is composed."""
    return _MESSAGES[code].format(**details)


class KitError(Exception):
    """An error of the kit: `code` says which kind, `details` what went into the message."""

    def __init__(self, code: ErrorCode, **details: Any) -> None:
        self.code = code
        self.details = details
        super().__init__(message(code, details))
