"""The fake provider for a library driven in-process: one dialect, one case, no sockets.

Why this module exists: library columns whose SDK talks to a provider over HTTP (Anthropic's tool
runner, Google GenAI, Agno) are driven with the SDK's real client over a mock transport, so what
is reported is the request the SDK would send next. Each needs the same small provider: answer the
first request with the case's calls as one assistant turn, every later one with the final text, and
keep every request body. The wire format is `dialects.py`'s; this module adds only that sequence.
No I/O: the adapter wraps `answer` in its HTTP library's mock transport. Needs the Python adapter
kit (for `Skip`), which every adapter venv has.
"""

from __future__ import annotations

import json
from typing import Any

import dialects
from harness_conformance_adapter import Skip, Turn


class ScriptedProvider:
    """The case's turn for the first request, the final text after it; `requests` keeps each body."""

    def __init__(self, dialect: str, turn: Turn, model: str):
        """`turn`'s calls as this dialect carries them in a whole (not streamed) response, absent
        fields left absent; a call it cannot carry makes the case SKIP with the reason."""
        self.dialect = dialect
        self.calls = [dict(c.raw) for c in turn.case.calls]
        try:
            dialects.check(dialect, self.calls, stream=False)
        except dialects.Unexpressible as exc:
            raise Skip(f"the {dialect} wire (a whole response) cannot carry this call: {exc}") from None
        self.model = model
        self.requests: list[Any] = []

    def answer(self, body: bytes) -> bytes:
        """The JSON body of the response to a request whose body is `body`."""
        self.requests.append(json.loads(body))
        calls = self.calls if len(self.requests) == 1 else []
        return dialects.encode(dialects.render_turn(self.dialect, calls, False, self.model), False)

    def results(self) -> list[dict] | None:
        """The tool results of the request after the turn (`dialects.results`), or None when the
        SDK sent none (it failed before asking the model again)."""
        if len(self.requests) < 2:
            return None
        return dialects.results(self.dialect, self.requests[1])

    def next_request(self) -> Any:
        """The body of the request after the turn, or None."""
        return self.requests[1] if len(self.requests) > 1 else None
