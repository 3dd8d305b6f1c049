"""The one place the wire tools run a case's scripted behaviours.

Why this module exists: the MCP tool server (mcp_server.py) must run each tool's scripted
behaviour (docs/DESIGN.md, "Behaviours") on whatever arguments arrive. The interpretation of
behaviours belongs to shared Python plumbing — today hcproto.py beside this file (the protocol
plumbing the adapters used before the Python adapter kit; the adapters moved to the kit, the wire has
not yet), later the kit — so this module is the only seam: switching to the kit changes this file
(and agent.py's serve loop) and nothing else. No I/O beyond the scripted sleeps.
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hcproto  # noqa: E402


class Raised(Exception):
    """A scripted `raise`: `kind` is domain, transport or internal."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


RAISERS = hcproto.Raisers(
    domain=lambda m: Raised("domain", m),
    transport=lambda m: Raised("transport", m),
    internal=lambda m: Raised("internal", m),
)


def unit_of(case: dict) -> str:
    """The unit generated sizes are measured in (the case's cap unit, else chars)."""
    return hcproto.cap_unit(case)


def perform(behavior: dict, args: Any, unit: str) -> Any:
    """Runs `behavior` on `args` (the handler's own copy); returns the output value or raises Raised."""
    return hcproto.perform_sync(behavior, args, unit, RAISERS)


def uses(behavior: dict, predicate) -> bool:
    """Whether any step of a behaviour chain satisfies `predicate(step)`."""
    while isinstance(behavior, dict):
        if predicate(behavior):
            return True
        behavior = behavior.get("then")
    return False
