#!/usr/bin/env python3
"""Writes the protocol vocabulary of both adapter kits from the protocol's JSON Schemas.

Why this exists: the words an adapter may say in its hello (outcome classes, cap units and
strategies, call forms, features, capability fields) are defined once, in the runner's
conformance/protocol/src/vocabulary.rs, and conformance/schema/protocol/ enumerates them
(generated and checked by ci/vocabulary.sh, which also runs this script); the scripted behaviours
an adapter must perform (behaviour, output, generator and raise kinds) are the schemas' own.
Each kit keeps them in ONE generated data module, so a kit never drifts from the runner:

    python3 conformance/kits/generate_vocabulary.py           # rewrite both modules
    python3 conformance/kits/generate_vocabulary.py --check   # exit 1 if either is stale (CI, tests)

Outputs: python/src/harness_conformance_adapter/vocabulary.py and typescript/src/vocabulary.ts.
Each behaviour-like list is derived from the schema's `oneOf` variants (the first `required` key
names a variant), so a behaviour added to run.schema.json shows up here, and each kit's tests
then fail until the kit implements it. Standard library only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCHEMAS = HERE.parent / "schema" / "protocol"
PYTHON_OUT = HERE / "python" / "src" / "harness_conformance_adapter" / "vocabulary.py"
TYPESCRIPT_OUT = HERE / "typescript" / "src" / "vocabulary.ts"


def _load(name: str) -> Any:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def _variants(node: Any) -> list[str]:
    """The discriminating key of each `oneOf` variant: its first required property."""
    return [variant["required"][0] for variant in node["oneOf"]]


def _cap_object(capabilities: Any) -> Any:
    return next(v for v in capabilities["properties"]["cap"]["oneOf"] if v.get("type") == "object")


def vocabulary() -> dict[str, Any]:
    """Every list the kits need, read from the schemas (order kept as the schemas give it)."""
    hello, run, start = _load("hello"), _load("run"), _load("start")
    caps = hello["$defs"]["capabilities"]
    cap = _cap_object(caps)
    features = caps["properties"]["features"]["items"]
    defs = run["$defs"]
    raise_variant = next(v for v in defs["behavior"]["oneOf"] if v["required"][0] == "raise")
    non_finite = next(v for v in defs["output"]["oneOf"] if v["required"][0] == "non_finite")
    return {
        "PROTOCOL_VERSION": start["properties"]["protocol"]["const"],
        "CAPABILITY_FIELDS": list(caps["properties"]),
        "IMPLEMENTATION_FIELDS": list(hello["properties"]["implementation"]["properties"]),
        "CAP_UNITS": cap["properties"]["unit"]["enum"],
        "CAP_STRATEGIES": cap["properties"]["strategies"]["items"]["enum"],
        "OUTCOME_CLASSES": caps["properties"]["codes"]["propertyNames"]["enum"],
        "CALL_FORMS": caps["properties"]["call_forms"]["items"]["enum"],
        # The JSON Schema keywords a hello may declare (None: any name).
        "KEYWORDS": caps["properties"]["keywords"]["items"].get("enum"),
        # An enumerated list when the schema has one; otherwise any name matching the pattern.
        "FEATURES": features.get("enum"),
        "FEATURE_PATTERN": features.get("pattern"),
        "BEHAVIOURS": _variants(defs["behavior"]),
        # Behaviours beyond the base set, which an adapter declares in the hello's `behaviors`.
        "OPTIONAL_BEHAVIOURS": caps["properties"].get("behaviors", {}).get("items", {}).get("enum", []),
        # The model providers' request formats a hello may name as its `dialect` (PROTOCOL.md 4i).
        "DIALECTS": caps["properties"].get("dialect", {}).get("enum", []),
        "RAISE_KINDS": raise_variant["properties"]["raise"]["properties"]["kind"]["enum"],
        "OUTPUTS": _variants(defs["output"]),
        "NON_FINITE": non_finite["properties"]["non_finite"]["enum"],
        "GENERATORS": _variants(defs["gen"]),
        "CALL_KEYS": sorted({k for v in defs["call"]["oneOf"] for k in v["properties"]}),
    }


_DOCS = {
    "PROTOCOL_VERSION": "The protocol version this kit speaks (start.schema.json).",
    "CAPABILITY_FIELDS": "Every field a hello's `capabilities` may carry (hello.schema.json).",
    "IMPLEMENTATION_FIELDS": "Every field of a hello's `implementation`.",
    "CAP_UNITS": "What a cap counts: UTF-8 bytes or Unicode scalar values.",
    "CAP_STRATEGIES": "How a cap cuts; the first a harness lists is its default.",
    "OUTCOME_CLASSES": "The suite's outcome classes, the keys of the hello's `codes` map.",
    "CALL_FORMS": "How a call reaches the harness.",
    "KEYWORDS": "The JSON Schema keywords a hello may declare, or None when any name is allowed.",
    "FEATURES": "The optional feature sets, or None when the schema only constrains their spelling.",
    "FEATURE_PATTERN": "The spelling every feature name must have.",
    "BEHAVIOURS": "Scripted handler behaviours (run.schema.json#/$defs/behavior).",
    "OPTIONAL_BEHAVIOURS": "Behaviours and outputs beyond the base set; an adapter declares those it runs in `behaviors`.",
    "DIALECTS": "The model providers' request formats a hello may name as its `dialect` (its results are then judged by that provider's acceptance rules).",
    "RAISE_KINDS": "The kinds of error a scripted handler raises.",
    "OUTPUTS": "What a scripted `return` gives back (run.schema.json#/$defs/output).",
    "NON_FINITE": "The non-finite floats a handler may return.",
    "GENERATORS": "Generated text (run.schema.json#/$defs/gen).",
    "CALL_KEYS": "Every key a call object may have (run.schema.json#/$defs/call).",
}

_HEADER = "generated by conformance/kits/generate_vocabulary.py from conformance/schema/protocol/; do not edit"


def _python_literal(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, list):
        return "(" + ", ".join(json.dumps(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return json.dumps(value)


def _python_type(value: Any) -> str:
    if isinstance(value, list):
        return "tuple[str, ...]"
    if isinstance(value, int):
        return "int"
    return "str | None" if value is None or isinstance(value, str) else "object"


def render_python(vocab: dict[str, Any]) -> str:
    lines = [f'"""The protocol vocabulary ({_HEADER})."""', "", "from __future__ import annotations", ""]
    for name, value in vocab.items():
        kind = _python_type(value)
        if name in ("FEATURES", "KEYWORDS"):
            kind = "tuple[str, ...] | None"
        lines += [f"{name}: {kind} = {_python_literal(value)}", f'"""{_DOCS[name]}"""', ""]
    return "\n".join(lines).rstrip() + "\n"


def render_typescript(vocab: dict[str, Any]) -> str:
    lines = [f"// The protocol vocabulary ({_HEADER}).", ""]
    for name, value in vocab.items():
        lines.append(f"/** {_DOCS[name]} */")
        if isinstance(value, list):
            lines.append(f"export const {name} = {json.dumps(value)} as const;")
        elif value is None:
            kind = "string" if name.endswith("_PATTERN") else "readonly string[]"
            lines.append(f"export const {name}: {kind} | null = null;")
        else:
            lines.append(f"export const {name} = {json.dumps(value)};")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def outputs() -> dict[Path, str]:
    vocab = vocabulary()
    return {PYTHON_OUT: render_python(vocab), TYPESCRIPT_OUT: render_typescript(vocab)}


def stale() -> list[Path]:
    """The generated files whose committed text differs from what the schemas give."""
    return [path for path, text in outputs().items()
            if not path.exists() or path.read_text(encoding="utf-8") != text]


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        paths = stale()
        for path in paths:
            print(f"stale: {path.relative_to(HERE)} (run {Path(__file__).name} to regenerate)", file=sys.stderr)
        return 1 if paths else 0
    if argv:
        print(f"usage: {Path(__file__).name} [--check]", file=sys.stderr)
        return 2
    for path, text in outputs().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
