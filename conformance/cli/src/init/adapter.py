#!/usr/bin/env python3
"""Adapter: put YOUR Python harness behind the harness-conformance protocol.

    pip install harness-conformance-adapter=={{suite}} harness-conformance=={{suite}}  # kit, runner
    harness-conformance run --harness 'python3 {{path}}'

The kit (harness_conformance_adapter) owns the protocol: the JSON-lines loop, strict JSON, the
hello, every scripted tool behaviour, the invocation log and who is blamed for what. You write the
three parts marked PLUG IN. As written this drives ToyHarness, a deliberately tiny harness, so the
adapter runs green against its first baseline at once; delete it and call yours.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from harness_conformance_adapter import Adapter, Capabilities, Errors, Implementation, Turn
from harness_conformance_adapter import Cap, Deadline  # for the capabilities you declare below


class ToyHarness:  # ===== delete this class: it stands in for your harness =======================
    TYPES: dict[str, Any] = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
                             "object": dict, "array": list}

    def __init__(self) -> None:
        self.tools: dict[str, tuple[dict[str, Any], Callable[[Any], Any]]] = {}

    def register(self, name: str, schema: dict[str, Any], handler: Callable[[Any], Any]) -> None:
        self.tools[name] = (schema, handler)

    def call(self, name: Any, args: Any) -> tuple[bool, str]:
        """(is_error, text the model sees): checks required fields and types, then runs the tool."""
        if not isinstance(name, str) or name not in self.tools:
            return True, f"unknown tool {name!r}"
        schema, handler = self.tools[name]
        if not isinstance(args, dict):
            return True, "arguments must be an object"
        for key in schema.get("required", []):
            if key not in args:
                return True, f"/{key}: required"
        for key, sub in schema.get("properties", {}).items():
            types = sub.get("type", []) if isinstance(sub, dict) else [] if sub else ["nothing"]
            types = types if isinstance(types, list) else [types]
            if key in args and types and not any(self.is_a(args[key], t) for t in types):
                return True, f"/{key}: expected {' or '.join(types)}, received {json.dumps(args[key])}"
        try:
            out = handler(args)
        except Exception:
            return True, "the tool failed"
        return False, out if isinstance(out, str) else json.dumps(out)

    def is_a(self, value: Any, type_name: str) -> bool:
        if type_name == "null":
            return value is None
        want = self.TYPES.get(type_name, ())
        return isinstance(value, want) and isinstance(value, bool) == (want is bool)


# ===== PLUG IN 1: build the case's tools in a fresh harness. ==================================
def build(turn: Turn) -> ToyHarness:
    harness = ToyHarness()
    for tool in turn.case.tools:  # turn.handler(tool) records the call, then performs its script
        harness.register(tool.name, dict(tool.input_schema), turn.handler(tool))
    return harness  # raise Skip("why") for a case your harness cannot express


# ===== PLUG IN 2: feed one turn's calls the way your agent loop does; report what the model sees.
def run_turn(harness: ToyHarness, turn: Turn) -> None:
    for call in turn.case.calls:
        turn.current_call = call  # handlers not told their call's id record this one
        with turn.harness_may_raise(call):  # if your harness raises, the model sees nothing
            is_error, text = harness.call(call.get("name"), call.get("input"))
            turn.report(call.id_or_none, is_error=is_error, content=text)


# ===== PLUG IN 3: describe your harness; declare only what it really does. ====================
{{capabilities}}

adapter = Adapter(
    Implementation({{name}}, "python", {{version}}{{homepage}}),
    CAPABILITIES,
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),  # YOUR error types
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
