#!/usr/bin/env python3
"""Adapter: put YOUR Python harness behind the harness-conformance protocol.

    pip install harness-conformance-adapter==1.1.0 harness-conformance==1.1.0  # kit, runner
    harness-conformance run --harness 'python3 adapter.py'

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
# A capability declared but missing shows up as FAILs; one left out is an honest SKIP (PROTOCOL.md
# section 2). Every capability of protocol 1 is below, with the names it takes; uncomment and edit
# what your harness has. (Written by `harness-conformance init` from the vocabulary of suite 1.1.0.)
CAPABILITIES = Capabilities(
    # cap: the output cap (none: the harness has no cap, and cap cases FAIL, by design). `unit`:
    #   what the limit counts (`tokens` with an `estimator`, PROTOCOL.md 4l); `strategies`: how it
    #   cuts, the first the default; `configurable`: a case may set the limit, the unit and the
    #   strategy. Units: bytes, chars, lines, tokens. Strategies: head_tail, head_only, reject,
    #   spill.
    # cap=Cap(unit="chars", limit=16384, strategies=["head_tail"], configurable=False),
    cap=None,
    # codes: each outcome class your harness tells apart -> its own machine code (several classes
    #   may share one). Classes: invalid_arguments, unknown_tool, malformed_call, duplicate_call_id,
    #   tool_refused, tool_unavailable, timeout, internal_error, invalid_tool_output,
    #   semantic_violation, permission_denied, budget_exhausted, idempotency_conflict,
    #   commit_rejected, output_too_large, cancelled.
    # codes={"invalid_arguments": "INVALID_ARGS", "unknown_tool": "NO_SUCH_TOOL"},
    # retryability: results say whether retrying the same call can help.
    # retryability=True,
    # deadline: handler deadlines: `configurable`, a case may set one; `default_ms`, the one the
    #   harness applies when none is set.
    # deadline=Deadline(configurable=True, default_ms=30000),
    # keywords: the JSON Schema keywords your harness enforces as the schema says (a case whose
    #   tools use another is skipped). Keywords: $ref, $defs, $anchor, $dynamicRef, $dynamicAnchor,
    #   definitions, allOf, anyOf, oneOf, not, if, then, else, dependentSchemas, dependencies,
    #   prefixItems, items, additionalItems, contains, properties, patternProperties,
    #   additionalProperties, propertyNames, unevaluatedItems, unevaluatedProperties, type, enum,
    #   const, multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum, maxLength,
    #   minLength, pattern, maxItems, minItems, uniqueItems, maxContains, minContains,
    #   maxProperties, minProperties, required, dependentRequired, format, contentEncoding,
    #   contentMediaType, contentSchema.
    # keywords=["type", "properties", "required", "additionalProperties", "enum"],
    keywords=["type", "properties", "required"],
    # call_forms: how a call may reach the harness: a structured block, its arguments as JSON text,
    #   or raw text. Forms: structured, arguments_text, raw.
    # call_forms=["structured", "arguments_text"],
    call_forms=["structured"],
    # parallel: a turn's calls reach the harness as one batch.
    # parallel=True,
    # history: replies carry the calls as the harness's transcript keeps them.
    # history=True,
    # features: optional feature sets (PROTOCOL.md sections 4a-4f); declare only those your harness
    #   has. Features: authorization, bounds, budget, idempotency, path-confinement, prepare-commit,
    #   offered-tools, stop-reason, repair, cancel, serial-calls, mcp-client, resume, image-limits,
    #   spill-lifecycle, pause, context-cap.
    # features=["authorization", "budget"],
    # folds: a class your harness does not tell apart -> the class it answers it as (which has a
    #   code), so it is judged on the partition it has.
    # folds={"malformed_call": "invalid_arguments"},
    # behaviors: scripted behaviours beyond the base set whose results your harness carries
    #   faithfully (the kit performs them all). Behaviours: non_finite_in, non_json, output_schema,
    #   content_blocks, audio_blocks, resource_link_blocks, stream.
    # behaviors=["non_finite_in"],
    # call_ids: false for a harness that never sees the model's tool-use ids (an MCP server: its
    #   host pairs results with calls); the id cases are then skipped.
    # call_ids=False,
    # dialect: the model provider whose request format your harness's results go into; every result
    #   is then judged by that provider's acceptance rules (PROTOCOL.md 4i). Dialects:
    #   anthropic-messages, bedrock-converse.
    # dialect="anthropic-messages",
    # wrapper: the markers your harness frames every result in, as a tool's untrusted text, and the
    #   escapes it applies to copies of them in an output (PROTOCOL.md 4l).
    # wrapper=Wrapper(open="<tool_output>\n", close="\n</tool_output>"),
)

adapter = Adapter(
    Implementation("toy-harness", "python", "0.1", "https://example.invalid/toy"),
    CAPABILITIES,
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),  # YOUR error types
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
