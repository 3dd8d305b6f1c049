#!/usr/bin/env python3
"""Tests of check_cases.py: each loader rule on a small case, then the real corpus.

Why this exists: check_cases.py mirrors the runner's loader rules (docs/DESIGN.md, "Blame") so
that a case author finds a mistake before building anything; a rule that silently stopped firing
would let a case claim a requirement it does not check. Standard library only; CI runs it
(`.ci/run`, step "case corpus"):

    python3 conformance/tools/test_check_cases.py
"""
from __future__ import annotations

import copy
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_cases as cc  # noqa: E402

SPEC = """# Spec

### VAL-1 (MUST) Invalid calls do not run
Rationale: nothing half-done.
Cases: `validation/a`

### VAL-2 (MUST) Invalid calls are errors
Rationale: the model must know.
Cases: `validation/a`

### TEACH-1 (MUST) Messages name the property
Rationale: the fix is obvious.
Cases: `validation/a`

### OUT-7 (MUST) Codes name the class
Rationale: routing.
Cases:

### HT-2 (MUST) The last line survives
Rationale: the error is there.
Applies: cap.strategy.head_tail
Cases:

### CAP-5 (MUST) A cut says so
Rationale: a part is not the whole.
Cases:

### CORR-1 (MUST) One result per call, with its id
Rationale: pairing.
Cases:

### ENC-1 (MUST) Valid text
Rationale: APIs reject the rest.
Cases:

### CAP-1 (MUST) Within the cap
Rationale: the context budget.
Cases:

### REPLAY-1 (MUST) The provider takes the result on replay
Rationale: a refused result blocks the session.
Applies: dialect
Cases:
"""


def invalid_call_case():
    """A valid, fully blamed case: an invalid call refused, named, not run."""
    return {
        "id": "validation/a",
        "requirements": ["VAL-1", "VAL-2", "TEACH-1"],
        "description": "d",
        "tools": [{"name": "t", "input_schema": {"type": "object"}, "behavior": {"return": {"json": 1}}}],
        "calls": [{"id": "c1", "name": "t", "input": {"n": "3"}}],
        "expect": {
            "results": [{"is_error": True, "content": {"contains": ["n"]}}],
            "invocations": {"t": 0},
            "blame": {"is_error": "VAL-2", "content": "TEACH-1", "invocations": "VAL-1"},
        },
    }


def problems(case, spec=SPEC):
    reqs, _ = cc.load_spec(spec)
    return cc.check_case(case["id"], case) + cc.blame_problems(case["id"], case, reqs)


def assert_says(test, found, text):
    """Some problem in `found` says `text`."""
    test.assertTrue(any(text in p for p in found), found)


class Spec(unittest.TestCase):
    def test_applies_line_is_parsed(self):
        reqs, probs = cc.load_spec(SPEC)
        self.assertEqual(probs, [])
        self.assertEqual(reqs["HT-2"]["applies"], ["cap.strategy.head_tail"])
        self.assertEqual(reqs["VAL-1"]["applies"], [])

    def test_unknown_capability_in_applies_is_a_problem(self):
        _, probs = cc.load_spec(SPEC.replace("Applies: cap.strategy.head_tail", "Applies: cap.strategy.middle"))
        assert_says(self, probs, "unknown capability 'cap.strategy.middle'")

    def test_feature_needs_are_known_only_for_defined_features(self):
        self.assertTrue(cc.known_need("feature.authorization"))
        self.assertFalse(cc.known_need("feature.telepathy"))

    def test_cases_line_must_follow_rationale_and_applies(self):
        _, probs = cc.load_spec(SPEC.replace("Applies: cap.strategy.head_tail\n", "Applies: cap.strategy.head_tail\nNote.\n"))
        assert_says(self, probs, "HT-2: expected 'Cases: ...'")

    def test_write_keeps_the_applies_line(self):
        reqs, _ = cc.load_spec(SPEC)
        text = cc.write_cases_lines(SPEC, reqs, {"HT-2": ["head-tail/x"]})
        self.assertIn("Applies: cap.strategy.head_tail\nCases: `head-tail/x`\n", text)


class Blame(unittest.TestCase):
    def test_a_fully_blamed_case_has_no_problem(self):
        self.assertEqual(problems(invalid_call_case()), [])

    def test_unknown_key_is_a_problem(self):
        case = invalid_call_case()
        case["expect"]["blame"]["message"] = "TEACH-1"
        assert_says(self, problems(case), "'message' is not a check kind")

    def test_case_level_key_in_a_result_blame_is_a_problem(self):
        case = invalid_call_case()
        case["expect"]["results"][0]["blame"] = {"invocations": "VAL-1"}
        assert_says(self, problems(case), "result 1's blame: 'invocations' is not a check kind")

    def test_key_for_an_unchecked_kind_is_dead(self):
        case = invalid_call_case()
        case["expect"]["blame"]["retryable"] = "VAL-2"
        assert_says(self, problems(case), "'retryable' blames no check")

    def test_key_shadowed_everywhere_is_dead(self):
        case = invalid_call_case()
        case["expect"]["results"][0]["blame"] = {"content.contains": "TEACH-1"}
        probs = problems(case)
        assert_says(self, probs, "expect.blame: 'content' blames no check")

    def test_check_without_owner_is_a_problem(self):
        case = invalid_call_case()
        del case["expect"]["blame"]["is_error"]
        assert_says(self, problems(case), "result 1: is_error has no owner")

    def test_owner_must_be_listed(self):
        case = invalid_call_case()
        case["expect"]["results"][0]["class"] = "invalid_arguments"
        probs = problems(case)
        assert_says(self, probs, "class is owned by OUT-7, which `requirements` does not list")

    def test_universal_check_on_its_default_owner_need_not_be_listed(self):
        case = invalid_call_case()  # tool_use_id (CORR-1), text.valid (ENC-1), cap.within (CAP-1) run
        self.assertNotIn("CORR-1", case["requirements"])
        self.assertEqual(problems(case), [])

    def test_universal_check_blamed_elsewhere_must_be_listed(self):
        case = invalid_call_case()
        case["expect"]["blame"]["text.valid"] = "CAP-5"
        assert_says(self, problems(case), "text.valid is owned by CAP-5, which `requirements` does not list")

    def test_listed_requirement_without_a_check_is_a_problem(self):
        case = invalid_call_case()
        case["requirements"].append("OUT-7")
        assert_says(self, problems(case), "lists OUT-7, but no check of the case is owned by it")

    def test_owner_undefined_in_spec_is_a_problem(self):
        case = invalid_call_case()
        case["requirements"].append("VAL-99")
        case["expect"]["blame"]["invocations"] = "VAL-99"
        assert_says(self, problems(case), "owned by VAL-99, which SPEC.md does not define")

    def test_result_blame_wins_and_specific_beats_group(self):
        case = invalid_call_case()
        case["expect"]["results"][0]["content"]["not_contains"] = ["SECRET"]
        case["expect"]["results"][0]["blame"] = {"content.not_contains": "VAL-2"}
        got = {(i, k): o for i, k, o, _ in cc.owners(case)}
        self.assertEqual(got[(0, "content.contains")], "TEACH-1")
        self.assertEqual(got[(0, "content.not_contains")], "VAL-2")
        self.assertEqual(got[(None, "invocations")], "VAL-1")
        self.assertEqual(problems(case), [])

    def test_truncated_defaults_by_its_value(self):
        case = invalid_call_case()
        case["expect"]["results"][0]["cap"] = {"truncated": True}
        self.assertIn((0, "cap.truncated", "CAP-5"), [(i, k, o) for i, k, o, _ in cc.owners(case)])
        case["expect"]["results"][0]["cap"] = {"truncated": False}
        self.assertIn((0, "cap.truncated", "CAP-2"), [(i, k, o) for i, k, o, _ in cc.owners(case)])

    def test_empty_lists_and_null_ids_are_not_checks(self):
        case = invalid_call_case()
        case["expect"]["results"][0] = {"tool_use_id": None, "is_error": True, "content": {"contains": []}}
        kinds = [k for _, k, _ in cc.live_checks(case)]
        self.assertNotIn("tool_use_id", kinds)
        self.assertNotIn("content.contains", kinds)

    def test_duplicate_ids_are_not_checked_by_default(self):
        case = invalid_call_case()
        case["calls"].append(dict(case["calls"][0]))
        case["expect"]["results"].append({})
        kinds = [(i, k) for i, k, _ in cc.live_checks(case)]
        self.assertNotIn((0, "tool_use_id"), kinds)
        self.assertNotIn((1, "tool_use_id"), kinds)

    def test_cap_area_case_must_list_a_cap_requirement(self):
        case = invalid_call_case()
        case["id"] = "cap/a"
        assert_says(self, problems(case), "must list a CAP-* or HT-* requirement")

    def test_owner_with_applies_needs_them(self):
        case = invalid_call_case()
        case["tools"][0]["behavior"] = {"return": {"generate": {"repeat": "x", "size": {"cap": 2.0, "plus": 0}}}}
        case["expect"]["results"][0]["cap"] = {"keeps_last_line": True}
        case["requirements"].append("HT-2")
        probs = problems(case)
        assert_says(self, probs, "owns checks of HT-2, which applies only with ['cap.strategy.head_tail']")
        case["config"] = {"cap": {"strategy": "head_tail"}}  # derived need
        self.assertEqual(problems(case), [])


class CaseRules(unittest.TestCase):
    def test_non_object_arguments_accept_both_classes(self):
        case = invalid_call_case()
        case["calls"][0]["input"] = ["Oslo"]
        case["expect"]["results"][0]["class"] = "malformed_call"
        assert_says(self, cc.check_case("x/y", case), "arguments that are not an object")
        case["expect"]["results"][0]["class"] = ["invalid_arguments", "malformed_call"]
        self.assertEqual(cc.check_case("x/y", case), [])

    def test_absent_input_and_non_object_arguments_text_count(self):
        case = invalid_call_case()
        del case["calls"][0]["input"]
        case["expect"]["results"][0]["class"] = "malformed_call"
        self.assertTrue(cc.check_case("x/y", case))
        case["calls"][0] = {"id": "c1", "name": "t", "arguments_text": "null"}
        self.assertTrue(cc.check_case("x/y", case))

    def test_arguments_text_that_is_not_json_is_only_malformed(self):
        case = invalid_call_case()
        for text in ["{\"n\": NaN}", "{'n': 1}", "{\"n\": 1,}"]:
            case["calls"][0] = {"id": "c1", "name": "t", "arguments_text": text}
            case["expect"]["results"][0]["class"] = "malformed_call"
            self.assertEqual(cc.check_case("x/y", case), [], text)

    def test_blank_name_accepts_both_classes_and_a_missing_one_only_malformed(self):
        case = invalid_call_case()
        case["calls"][0]["name"] = " "
        case["expect"]["results"][0]["class"] = "malformed_call"
        assert_says(self, cc.check_case("x/y", case), "a blank tool name")
        del case["calls"][0]["name"]
        self.assertEqual(cc.check_case("x/y", case), [])

    def test_relative_sleep_needs_deadline(self):
        case = invalid_call_case()
        case["tools"][0]["behavior"] = {"sleep_ms": {"deadline": 4.0, "plus": 1500}, "then": {"return": {"json": 1}}}
        assert_says(self, cc.check_case("x/y", case), "needs `deadline`")
        case["needs"] = ["deadline"]
        # A harness whose deadline is configurable with no default resolves it against the
        # case's own deadline, which must then be there.
        assert_says(self, cc.check_case("x/y", case), "needs `config.deadline_ms`")
        case["config"] = {"deadline_ms": 250}
        self.assertEqual(cc.check_case("x/y", case), [])

    def test_non_finite_in_pointers_need_parents(self):
        case = invalid_call_case()
        out = {"non_finite_in": {"value": {"a": {"b": [1, 2]}}, "at": {"/a/b/1": "nan", "/a/c": "inf"}}}
        case["tools"][0]["behavior"] = {"return": out}
        self.assertEqual(cc.check_case("x/y", case), [])
        for bad in ["/a/b/2", "/x/y", "/a/b/1/z"]:
            broken = copy.deepcopy(case)
            broken["tools"][0]["behavior"]["return"]["non_finite_in"]["at"] = {bad: "nan"}
            assert_says(self, cc.check_case("x/y", broken), "has no parent")

    def test_invocations_must_name_defined_tools(self):
        case = invalid_call_case()
        case["expect"]["invocations"] = {"nope": 0}
        assert_says(self, cc.check_case("x/y", case), "unknown tool 'nope'")


class Corpus(unittest.TestCase):
    def test_the_corpus_and_spec_have_no_problem(self):
        cases, probs = cc.load_cases(cc.CASES)
        reqs, spec_probs = cc.load_spec(cc.SPEC.read_text(encoding="utf-8"))
        probs += spec_probs + cc.check_corpus(cases, reqs)
        self.assertEqual(probs, [], "\n".join(probs[:20]))


if __name__ == "__main__":
    unittest.main(verbosity=1)
