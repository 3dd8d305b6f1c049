#!/usr/bin/env python3
"""Adapter template: put YOUR Python harness behind the harness-conformance protocol.

Copy this one file (standard library only), change the three places marked PLUG IN, then:

    harness-conformance run --harness 'python3 path/to/adapter.py'

As shipped it drives ToyHarness, a deliberately tiny harness, so the template itself can be run
and tested. The protocol (JSON lines on stdin/stdout) is in conformance/PROTOCOL.md.
"""
import json, math, sys, time

# ===== PLUG IN 1: describe your harness. Declare only what it really does. =====================
HELLO = {
    "protocol": 1,
    "implementation": {"name": "toy-harness", "language": "python", "version": "0.1",
                       "homepage": "https://example.invalid/toy"},
    "capabilities": {
        "cap": None,                      # no output cap; else {"unit", "limit", "configurable", "strategies"}
        "keywords": ["type", "properties", "required"],  # schema keywords your harness enforces
        "call_forms": ["structured"],
        # "codes": {...}, "retryability": True, "deadline": {...}, "parallel": True, "history": True
    },
}


class ToyHarness:  # ===== delete this class: it stands in for your harness ========================
    TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}

    def __init__(self):
        self.tools = {}

    def is_a(self, value, type_name):
        if type_name == "null":
            return value is None
        want = self.TYPES.get(type_name, ())
        return isinstance(value, want) and isinstance(value, bool) == (want is bool)

    def register(self, name, schema, handler):
        self.tools[name] = (schema, handler)

    def call(self, name, args):
        if not isinstance(name, str) or name not in self.tools:
            return {"error": True, "text": f"unknown tool {name!r}"}
        schema, handler = self.tools[name]
        if not isinstance(args, dict):
            return {"error": True, "text": "arguments must be an object"}
        for key in schema.get("required", []):
            if key not in args:
                return {"error": True, "text": f"/{key}: required"}
        for key, sub in schema.get("properties", {}).items():
            types = sub.get("type", []) if isinstance(sub, dict) else [] if sub else ["nothing"]
            types = types if isinstance(types, list) else [types]
            if key in args and types and not any(self.is_a(args[key], t) for t in types):
                return {"error": True, "text": f"/{key}: expected {' or '.join(types)}, received {json.dumps(args[key])}"}
        try:
            out = handler(args)
        except Exception:
            return {"error": True, "text": "the tool failed"}
        return {"error": False, "text": out if isinstance(out, str) else json.dumps(out)}


# ===== PLUG IN 2: build the case's tools in your harness. =====================================
def build_harness(case, make_handler):
    """Register every tool of the case; make_handler(tool) gives the scripted handler to call."""
    harness = ToyHarness()
    for tool in case["tools"]:
        harness.register(tool["name"], tool["input_schema"], make_handler(tool))
    return harness


# ===== PLUG IN 3: feed one turn's calls the way your agent loop does; say what the model sees. ==
def run_turn(harness, case, invocations):
    results = []
    for call in case["calls"]:
        invocations.current_id = call.get("id")
        out = harness.call(call.get("name"), call.get("input"))
        results.append({"tool_use_id": call.get("id"), "is_error": out["error"], "content": out["text"],
                        "native": out})
    return results


# ---- scripted handlers (keep; map raise kinds to your harness's own error types) ---------------
class Invocations(list):
    current_id = None


def expand(gen, unit):
    size = (lambda s: len(s.encode())) if unit == "bytes" else len
    if "text" in gen:
        return gen["text"]
    if "repeat" in gen:
        return gen["repeat"] * (gen["size"] // size(gen["repeat"]))
    if "lines" in gen:
        g = gen["lines"]
        n = max(g["size"] - size(g["last"]), 0) // (g["width"] + 1)
        return "".join(f"{i % 1000000:06} ".ljust(g["width"], "x") + "\n" for i in range(1, n + 1)) + g["last"]
    return "".join(expand(part, unit) for part in gen["concat"])


def make_handler_factory(case, invocations):
    unit = ((case.get("config") or {}).get("cap") or {}).get("unit", "chars")

    def make_handler(tool):
        def handler(args):
            invocations.append({"tool": tool["name"], "tool_use_id": invocations.current_id,
                                "args": json.loads(json.dumps(args))})  # copied on entry
            b = tool["behavior"]
            while "return" not in b:
                if "raise" in b:  # domain / transport / internal: raise YOUR harness's matching error
                    raise RuntimeError(b["raise"]["message"])
                if "sleep_ms" in b:
                    time.sleep(b["sleep_ms"] / 1000)
                for ptr, val in b.get("mutate_args", {}).get("set", {}).items():
                    *path, last = ptr.split("/")[1:]
                    node = args
                    for p in path:
                        node = node[int(p) if isinstance(node, list) else p]
                    node[int(last) if isinstance(node, list) else last] = val
                b = b["then"]
            out = b["return"]
            if "non_finite" in out:
                return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[out["non_finite"]]
            if "echo_args" in out:
                return args
            return expand(out["generate"], unit) if "generate" in out else out.get("text", out.get("json"))
        return handler
    return make_handler


# ---- the protocol loop (keep) -----------------------------------------------------------------
def main():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["cmd"] == "start":
            if msg["protocol"] != 1:
                sys.exit(f"adapter speaks protocol 1, runner asked for {msg['protocol']}")
            reply = HELLO
        elif msg["cmd"] == "stop":
            return
        else:
            case, invocations = msg["case"], Invocations()
            try:
                harness = build_harness(case, make_handler_factory(case, invocations))
                reply = {"results": run_turn(harness, case, invocations), "invocations": invocations}
            except Exception as exc:  # a case your harness cannot express: reply {"skip": reason} instead
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            reply = {"seq": msg["seq"], "case": case["id"], **reply}
        print(json.dumps(reply, default=repr), flush=True)


if __name__ == "__main__":
    main()
