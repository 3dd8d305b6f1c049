"""The one place the wire tools reach the Python adapter kit's scripted behaviours.

Why this module exists: the MCP tool server (mcp_server.py) must run each tool's scripted
behaviour (docs/DESIGN.md, "Behaviours") on whatever arguments arrive, exactly as every other
Python adapter does. Their interpretation is the Python adapter kit's (conformance/kits/python,
standard library only), so this module puts the kit on the import path for every wire script and
says how the server's handlers fail (`ERRORS`), and how the server's invocation log is read
back. No I/O beyond the scripted sleeps and that log.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

KIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kits", "python", "src")
sys.path.insert(0, os.path.normpath(KIT))

from harness_conformance_adapter import Errors, KitError, Script  # noqa: E402


class Raised(Exception):
    """A scripted `raise`: `kind` is domain, transport or internal."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


ERRORS = Errors(
    domain=lambda m: Raised("domain", m),
    transport=lambda m: Raised("transport", m),
    internal=lambda m: Raised("internal", m),
)

class BehaviourFailed(Exception):
    """The server could not perform a case's behaviour (a KitError in its handler)."""


ADAPTER_FAILURE = "adapter_failure"
"""The key of an invocation-log line saying a behaviour could not be performed (the adapter's
failure, not the agent's: agent.py makes the reply an error)."""


def perform(behavior: dict, args: Any, unit: str) -> Any:
    """Runs `behavior` on `args` (the handler's own copy); returns the output value or raises
    Raised (a scripted error) or KitError (a behaviour the kit cannot perform)."""
    # KitError is re-exported for the server, which logs it under ADAPTER_FAILURE.
    return Script(behavior, unit, ERRORS).run(args)


def uses(behavior: dict, predicate) -> bool:
    """Whether any step of a behaviour chain satisfies `predicate(step)`."""
    while isinstance(behavior, dict):
        if predicate(behavior):
            return True
        behavior = behavior.get("then")
    return False


def read_log(path: str) -> list[dict]:
    """The invocations the server logged, in order; raises BehaviourFailed if one could not be
    performed (the kit then answers the case as the adapter's failure)."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                entry = json.loads(line)
                if ADAPTER_FAILURE in entry:
                    raise BehaviourFailed(f"the MCP server could not perform a behaviour: {entry[ADAPTER_FAILURE]}")
                entries.append(entry)
    return entries
