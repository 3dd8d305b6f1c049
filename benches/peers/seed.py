"""The Python seed baseline: seed 000's `run_tool` (validate, run, wrap, cap), timed with timeit.

The seed is the lesson this project grew from (shared/seeds/000): a small dictionary-walking JSON
Schema check that stops at the first problem, a `tool_result` dict, and a hard cut of long
content. It is the floor a harness is measured against: a harness that does more (every
violation, remedies, a head+tail cap, deadlines, diagnostics) should still not be slower.
Standard library only. Prints one JSON line: {"name", "valid_ns", "invalid_ns"}.
"""
from __future__ import annotations

import json
import sys
import timeit

TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}
MAX_RESULT_CHARS = 2000


def validate(value, schema, path="args"):
    """Return None if valid, else a message that names the field and what to change."""
    t = schema.get("type")
    if t:
        is_num = t in ("number", "integer")
        if not isinstance(value, TYPES[t]) or (is_num and isinstance(value, bool)):
            return f"{path}: expected {t}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: {value!r} is not allowed; choose one of {schema['enum']}"
    if t in ("number", "integer"):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{path}: {value} is below the minimum {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{path}: {value} is above the maximum {schema['maximum']}"
    if t == "object":
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}: missing required field {key!r}"
        for key, item in value.items():
            if key not in props:
                return f"{path}: unexpected field {key!r}; allowed: {sorted(props)}"
            err = validate(item, props[key], f"{path}.{key}")
            if err:
                return err
    if t == "array" and "items" in schema:
        for n, item in enumerate(value):
            err = validate(item, schema["items"], f"{path}[{n}]")
            if err:
                return err
    return None


def result(call_id, content, is_error=False, limit=MAX_RESULT_CHARS):
    """Wrap an outcome: pair it to the call id, flag errors, cap the size with a visible note."""
    text = str(content)
    if len(text) > limit:
        text = (f"{text[:limit]}\n...[truncated {len(text) - limit} of {len(text)} chars; "
                "ask for a narrower range]")
    return {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}


def run_tool(call, impls, schemas):
    """validate -> run -> wrap. Never raises, and never runs a call that failed validation."""
    schema = schemas.get(call["name"])
    if schema is None:
        return result(call["id"], f"no tool named {call['name']!r}; have {sorted(schemas)}", True)
    problem = validate(call["input"], schema["input_schema"])
    if problem:
        return result(call["id"], problem, True)
    try:
        return result(call["id"], impls[call["name"]](**call["input"]))
    except Exception as exc:
        return result(call["id"], f"{type(exc).__name__}: {exc}", True)


SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
        "recursive": {"type": "boolean"},
    },
    "required": ["path", "limit", "recursive"],
}
VALID = {"id": "toolu_01", "name": "list", "input": {"path": "src", "limit": 10, "recursive": True}}
INVALID = {"id": "toolu_02", "name": "list", "input": {"path": 3, "limit": "10", "recursive": True}}


def median_ns(fn, number: int, repeat: int) -> float:
    times = timeit.repeat(fn, number=number, repeat=repeat)
    times.sort()
    return times[len(times) // 2] / number * 1e9


def main() -> None:
    impls = {"list": lambda path, limit, recursive: "ok"}
    schemas = {"list": {"input_schema": SCHEMA}}
    assert run_tool(VALID, impls, schemas)["content"] == "ok"
    assert run_tool(INVALID, impls, schemas)["is_error"]
    number = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    print(json.dumps({
        "name": "Python seed 000 run_tool",
        "valid_ns": median_ns(lambda: run_tool(VALID, impls, schemas), number, 15),
        "invalid_ns": median_ns(lambda: run_tool(INVALID, impls, schemas), number, 15),
        "valid_error": False,
        "invalid_error": True,
        "note": "reports only the first violation",
    }))


if __name__ == "__main__":
    main()
