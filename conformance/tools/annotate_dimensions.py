#!/usr/bin/env python3
"""One-off (issue 27): annotate the cases with the fault dimensions their names state.

Run once (2 December 2026); its result is committed, and it is kept to show where those
annotations came from. Only what conformance/tools/fault_map.py cannot derive from a case's
structure is annotated here, from words of the case's fault name (RULES). It only adds
dimensions a case does not list yet, so rerunning it never undoes a hand annotation; new cases
carry `dimensions` written by their author (CONTRIBUTING.md, "Add a case").

    python3 conformance/tools/annotate_dimensions.py
"""
import json
import re
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent.parent / "cases"

# dimension -> regex over the fault name (the id after the area), words joined by '-'.
RULES = {
    "type": r"(^|-)(for-(integer|number|string|boolean|array|object)|is-not-coerced|not-(coerced|converted|joined|split|stringified|parsed|unwrapped)"
            r"|for-array|array-for|array-name|arguments-text-array|raw-block-array|array-was-received|boolean|number-name|null-name|object-id|number-id|numeric-string|json-text|python-literal|wrong-type|type|format|bytes-output|date-output|set-output|set-as|opaque|stays-a-string|echoed-as-a-string|string-field|union|nan-looking|structured-output-is-json-text|arguments-(null|number|boolean|array|absent))(-|$)",
    "boundary": r"(^|-)(exactly|at-the-(cap|limit)|at-bound|over-bound|one-(unit|line)-(over|under)|just-over|boundary|straddling|above-maximum|below-minimum|exclusive|inclusive|too-(few|many)|above-max|below-min|fits-exactly|at-the-limit|before-expiry|after-expiry|half-the-cap|prefix|offset-[0-9]|largest|smallest|longer-name|whole-components|min-length|max-length)(-|$)",
    "encoding": r"(^|-)(unicode|utf|emoji|surrogate|normaliz\w*|decomposed|precomposed|combining|astral|multibyte|mixed-width|byte-order|crlf|tabs|whitespace|blank|leading|trailing|backslash|escapes?|html|entities|right-to-left|replacement|nul|control|separators|quotes|newline|case|hyphen|two-byte|three-byte|four-byte|non-ascii|code-points|characters|accent\w*|keys-needing-escapes)(-|$)",
    "number": r"(^|-)(number|numbers|integer|integers|float|exponent|decimal|negative-zero|zero|one-point-zero|multiple-of|nan|infinity|negative-infinity|finite-double|subnormal|big-integers|safe-integers|unique-items|true-is-not-one|one-for-boolean|false-is-not-zero|const|enum|changed-amount|budget|equal)(-|$)",
    "absence": r"(^|-)(missing|absent|empty|null|without-(a-final-newline|approval|capability|a-key|name|parameters)|no-tools|optional|default-does|falsy|false-output|zero-output|required)(-|$)",
    "error-path": r"(^|-)(runs|is-a-success|looks-like-an-error|is-not-flagged|error-key|is-delivered-or-refused|reaches-the-model|not-replaced-by-a-placeholder)(-|$)",
    "nesting": r"(^|-)(nested|deep|deeply|depth|nesting|cycle|cyclic|inner-array|in-an-item|array-item|array-items|array-of-objects)(-|$)",
}
COMPILED = {d: re.compile(r) for d, r in RULES.items()}


def dimensions_of(cid):
    name = cid.split("/", 1)[1]
    return [d for d, rx in COMPILED.items() if rx.search(name)]


def main():
    changed = 0
    for path in sorted(CASES.rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        case = json.loads(text)
        ascii_only = json.dumps(case, indent=2, ensure_ascii=True) + "\n" == text
        have = case.get("dimensions", [])
        dims = have + [d for d in dimensions_of(case["id"]) if d not in have]
        if dims == have:
            continue  # only ever adds: a case's own annotation stays as it is
        out = {}
        for key, value in case.items():
            if key == "dimensions":
                continue
            out[key] = value
            if key == "requirements":
                out["dimensions"] = dims
        path.write_text(json.dumps(out, indent=2, ensure_ascii=ascii_only) + "\n", encoding="utf-8")
        changed += 1
    print(f"{changed} cases annotated", file=sys.stderr)


if __name__ == "__main__":
    main()
