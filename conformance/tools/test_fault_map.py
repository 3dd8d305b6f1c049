"""Tests of fault_map.py: docs/fault-map.md from the cases, SPEC.md and fault-dimensions.json."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import fault_map  # noqa: E402

DIMENSIONS = {name: f"what goes wrong in {name}" for name in fault_map.NAMES}


def req(title):
    return {"level": "MUST", "title": title, "applies": None, "cases": None, "cases_line": None}


def case(cid, requirements, results=None, calls=None, **extra):
    return {"id": cid, "requirements": requirements, "description": "d", "tools": [],
            "calls": calls or [{"id": "toolu_1", "name": "t", "input": {}}],
            "expect": {"results": results or [{"is_error": False}]}, **extra}


def row(text, rid):
    line = next(line for line in text.splitlines() if line.startswith(f"| {rid} |"))
    return dict(zip(fault_map.NAMES, [c.strip() for c in line.strip("|").split("|")[1:]]))


class Derived(unittest.TestCase):
    def test_the_structure_shows_order_concurrency_size_depth_and_the_error_path(self):
        two = [{"id": "a", "name": "t", "input": {}}, {"id": "b", "name": "t", "input": {"x": {"y": {}}}}]
        c = case("cap/x", ["CAP-1"], results=[{"is_error": True}, {"is_error": False}], calls=two,
                 parallel_calls=True)
        self.assertEqual(fault_map.dimensions_of(c),
                         ["ordering", "concurrency", "size", "nesting", "error-path"])

    def test_a_plain_case_derives_nothing_and_its_annotation_is_added(self):
        self.assertEqual(fault_map.dimensions_of(case("validation/x", ["VAL-1"])), [])
        annotated = case("validation/x", ["VAL-1"], dimensions=["absence", "type"])
        self.assertEqual(fault_map.dimensions_of(annotated), ["type", "absence"])

    def test_a_sleeping_handler_is_concurrency(self):
        c = case("outcomes/x", ["OUT-4"])
        c["tools"] = [{"name": "t", "behavior": {"sleep_ms": 10, "return": {"text": "ok"}}}]
        self.assertIn("concurrency", fault_map.dimensions_of(c))


class Build(unittest.TestCase):
    def setUp(self):
        self.reqs = {"VAL-1": req("a handler never runs"), "VAL-2": req("an error result"),
                     "CAP-1": req("within the cap")}
        self.data = {"dimensions": DIMENSIONS,
                     "not_applicable": {"VAL": {"concurrency": "one call's arguments"},
                                        "VAL-2": {"nesting": "one answer"}},
                     "open": {"VAL-1": {"encoding": "needs a new handler behaviour"}}}

    def build(self, cases):
        return fault_map.build(self.reqs, cases, self.data)

    def test_cells_are_counts_not_applicable_open_or_gaps(self):
        cases = {"validation/a": case("validation/a", ["VAL-1", "VAL-2"], dimensions=["type"]),
                 "validation/b": case("validation/b", ["VAL-1"], dimensions=["type", "absence"])}
        text, problems = self.build(cases)
        val1, val2 = row(text, "VAL-1"), row(text, "VAL-2")
        self.assertEqual((val1["type"], val1["absence"], val2["type"]), ("2", "1", "1"))
        self.assertEqual((val1["concurrency"], val2["concurrency"], val2["nesting"]), ("–", "–", "–"))
        self.assertEqual(val1["nesting"], "**gap**")  # the family's reason is VAL's, VAL-2 has its own
        self.assertEqual(val1["encoding"], "**open**")
        self.assertIn("- VAL-1 × `encoding`: needs a new handler behaviour", text)
        self.assertIn("- VAL-2 × `nesting`: one answer", text)
        self.assertIn("- `type` (2): `validation/a`, `validation/b`", text)
        # Every cell left a gap is a problem, so the map cannot be checked in with one.
        gaps = [(rid, d) for rid in ("VAL-1", "VAL-2", "CAP-1") for d, v in row(text, rid).items()
                if v == "**gap**"]
        self.assertIn(("VAL-1", "nesting"), gaps)
        self.assertEqual(problems, [f"{rid} × {d}: a gap (no case, no reason): write a case that exercises "
                                    "it, or say in fault-dimensions.json why it is not applicable or open"
                                    for rid, d in gaps])

    def test_a_map_with_every_applicable_cell_covered_or_reasoned_has_no_problems(self):
        self.reqs = {"VAL-2": req("an error result")}
        reasons = {d: "no case needed here" for d in fault_map.NAMES if d not in ("type", "nesting", "concurrency")}
        self.data["open"] = {"VAL-2": reasons}
        cases = {"validation/a": case("validation/a", ["VAL-2"], dimensions=["type"])}
        text, problems = self.build(cases)
        self.assertEqual(problems, [])
        self.assertIn("## Gaps\n\nApplicable cells with no case and no reason (`--check` fails while there is "
                      "one).\n\nNone.", text)

    def test_a_requirement_can_be_an_exception_to_its_family(self):
        self.data["not_applicable"]["VAL-1"] = {"concurrency": None}
        text, problems = self.build({})
        self.assertIn("VAL-1 × concurrency: a gap", "\n".join(problems))
        self.assertNotIn("VAL-2 × concurrency", "\n".join(problems))
        self.assertEqual((row(text, "VAL-1")["concurrency"], row(text, "VAL-2")["concurrency"]),
                         ("**gap**", "–"))
        self.data["not_applicable"]["VAL"]["nesting"] = None
        _, problems = self.build({})
        self.assertIn("fault-dimensions.json: not_applicable: VAL: nesting: a reason is required", problems)

    def test_a_new_requirement_without_data_is_all_gaps_and_a_bare_case_is_listed(self):
        self.reqs["NEW-1"] = req("something new")
        cases = {"new/bare": case("new/bare", ["NEW-1"])}
        text, problems = self.build(cases)
        self.assertEqual(set(row(text, "NEW-1").values()), {"**gap**"})
        self.assertEqual(len([p for p in problems if p.startswith("NEW-1 × ")]), len(fault_map.NAMES))
        self.assertIn("- NEW-1 × `type`: something new", text)
        self.assertIn("## Cases with no dimension\n\nNeither annotated nor derivable: add `dimensions` "
                      "to the case file.\n\n- `new/bare`", text)

    def test_a_case_naming_an_unknown_requirement_is_left_to_the_corpus_check(self):
        cases = {"x/y": case("x/y", ["GONE-1"], dimensions=["type"])}
        _, problems = self.build(cases)
        self.assertEqual([p for p in problems if "GONE-1" in p or "x/y" in p], [])

    def test_unknown_dimensions_and_keys_and_missing_reasons_are_problems(self):
        self.data["not_applicable"]["NOPE-1"] = {"type": "x"}
        self.data["not_applicable"]["CAP"] = {"colour": "x", "size": " "}
        self.data["open"]["VAL-2"] = {"nesting": "also open"}
        cases = {"x/y": case("x/y", ["VAL-1"], dimensions=["speed"])}
        _, problems = self.build(cases)
        joined = "\n".join(problems)
        for expected in ("x/y: unknown dimension 'speed'", "NOPE-1 is neither a requirement nor a family",
                         "CAP: unknown dimension 'colour'", "CAP: size: a reason is required",
                         "VAL-2: nesting is both not applicable and open"):
            self.assertIn(expected, joined)

    def test_a_reason_naming_a_case_must_name_one_that_exists(self):
        self.data["open"]["VAL-1"]["encoding"] = "exercised by `validation/a` and `validation/gone`"
        cases = {"validation/a": case("validation/a", ["VAL-2"], dimensions=["encoding"])}
        _, problems = self.build(cases)
        self.assertIn("fault-dimensions.json: open: VAL-1: encoding: no case `validation/gone`", problems)
        self.assertFalse(any("`validation/a`" in p for p in problems), problems)

    def test_the_vocabulary_must_match_the_data(self):
        self.data["dimensions"] = {"type": "only one"}
        _, problems = self.build({})
        self.assertTrue(any("must define exactly" in p for p in problems), problems)

    def test_the_map_is_deterministic(self):
        cases = {"validation/a": case("validation/a", ["VAL-1"], dimensions=["type"])}
        self.assertEqual(self.build(cases)[0], self.build(dict(reversed(list(cases.items()))))[0])


class Repository(unittest.TestCase):
    def test_the_checked_in_map_is_current(self):
        self.assertEqual(fault_map.main(["--check"]), 0)


if __name__ == "__main__":
    unittest.main()
