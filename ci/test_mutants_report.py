#!/usr/bin/env python3
"""Tests of mutants_report.py: reading cargo-mutants outputs, the triage file, the report and the
gate, on small outputs written here.

Why this exists: the mutation run's figures and its gate come from this script alone (the full
run is sharded and merged by it, docs/mutants.md); a parsing slip would report a missed mutant as
caught, or let an untriaged one through. Standard library only; `.ci/run` runs it (step "case
corpus"):

    python3 ci/test_mutants_report.py
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutants_report as mr  # noqa: E402

SOURCE = """fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
"""


def mutant(file, line, what):
    return {"name": f"{file}:{line}:11: {what}", "file": file,
            "span": {"start": {"line": line, "column": 11}, "end": {"line": line, "column": 12}}}


def outcome(m, summary, log=None, seconds=(10.0, 2.0)):
    o = {"scenario": {"Mutant": m}, "summary": summary,
         "phase_results": [{"phase": "Build", "duration": seconds[0]},
                           {"phase": "Test", "duration": seconds[1]}]}
    if log is not None:
        o["log_path"] = log
    return o


CAP_LT = mutant("harness-ref/src/cap.rs", 2, "replace < with <= in floor_boundary")
CAP_SUB = mutant("harness-ref/src/cap.rs", 3, "replace -= with += in floor_boundary")
SCHEMA = mutant("harness-ref/src/schema.rs", 2, "replace && with || in validate")
GATE = mutant("harness-ref/src/security/gates.rs", 2, "delete ! in admit")
ODD = mutant("harness-ref/src/lib.rs", 2, "replace x -> bool with true")


class Fixture(unittest.TestCase):
    """A temporary repository root with the mutated sources, and mutants.out directories."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for m in (CAP_LT, SCHEMA, GATE, ODD):
            path = self.root / m["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(SOURCE, encoding="utf-8")
        self.saved_root, mr.ROOT = mr.ROOT, self.root

    def tearDown(self):
        mr.ROOT = self.saved_root
        self.tmp.cleanup()

    def out_dir(self, name, outcomes, logs=None):
        d = self.root / name / "mutants.out"
        (d / "log").mkdir(parents=True)
        baseline = {"scenario": "Baseline", "summary": "Success", "phase_results": []}
        (d / "outcomes.json").write_text(json.dumps({"outcomes": [baseline, *outcomes]}),
                                         encoding="utf-8")
        for log, text in (logs or {}).items():
            (d / log).write_text(text, encoding="utf-8")
        return d

    def triage(self, text):
        path = self.root / "triage.tsv"
        path.write_text(text, encoding="utf-8")
        return str(path)


class Load(Fixture):
    def test_each_summary_is_one_kind_and_the_baseline_is_not_a_mutant(self):
        d = self.out_dir("a", [outcome(CAP_LT, "CaughtMutant"), outcome(CAP_SUB, "MissedMutant"),
                               outcome(SCHEMA, "Unviable"), outcome(GATE, "Timeout")])
        kinds = {name: t.kind for name, t in mr.load([str(d)]).items()}
        self.assertEqual(kinds, {CAP_LT["name"]: "caught", CAP_SUB["name"]: "missed",
                                 SCHEMA["name"]: "unviable", GATE["name"]: "timeout"})

    def test_shards_are_found_below_a_directory_and_merged(self):
        self.out_dir("shards/0", [outcome(CAP_LT, "CaughtMutant")])
        self.out_dir("shards/1", [outcome(SCHEMA, "MissedMutant")])
        self.assertEqual(set(mr.load([str(self.root / "shards")])),
                         {CAP_LT["name"], SCHEMA["name"]})

    def test_no_outcomes_is_an_error_not_an_empty_report(self):
        (self.root / "empty").mkdir()
        with self.assertRaises(SystemExit):
            mr.load([str(self.root / "empty")])

    def test_time_is_build_plus_test(self):
        d = self.out_dir("a", [outcome(CAP_LT, "MissedMutant", seconds=(30.0, 1.5))])
        self.assertEqual(mr.load([str(d)])[CAP_LT["name"]].seconds, 31.5)

    def test_a_caught_mutant_names_the_requirements_of_the_last_caught_by_line(self):
        log = ("thread panicked at tests/reference_fast.rs:\nReference: cap/x is FAIL "
               "(expected PASS):\nresult 0: ...\ncaught by: CAP-6 HT-2\n")
        d = self.out_dir("a", [outcome(CAP_LT, "CaughtMutant", "log/a.log"),
                               outcome(SCHEMA, "CaughtMutant", "log/missing.log")],
                         {"log/a.log": log})
        loaded = mr.load([str(d)])
        self.assertEqual(loaded[CAP_LT["name"]].caught_by, ["CAP-6", "HT-2"])
        self.assertEqual(loaded[SCHEMA["name"]].caught_by, [])

    def test_without_a_caught_by_line_the_failing_case_s_requirements_count(self):
        case = self.root / "conformance/cases/cap/x.json"
        case.parent.mkdir(parents=True)
        case.write_text(json.dumps({"id": "cap/x", "requirements": ["CAP-4", "OUT-1"]}))
        self.assertEqual(mr.caught_by("Repair: cap/x is FAIL (expected PASS):\nwhy\n"),
                         ["CAP-4", "OUT-1"])
        self.assertEqual(mr.caught_by("Repair: cap/nothing is FAIL (expected PASS):\n"), [])
        self.assertEqual(mr.caught_by("error[E0308]: mismatched types\n"), [])


class Keys(unittest.TestCase):
    def test_areas(self):
        self.assertTrue(mr.area_of("harness-ref/src/cap.rs").startswith("cap"))
        self.assertTrue(mr.area_of("harness-ref/src/security/gates.rs").startswith("security"))
        self.assertEqual(mr.area_of("harness-ref/src/lib.rs"), "other")
        self.assertEqual(mr.area_of("harness-ref/src/cap.rs.orig"), "other")

    def test_every_area_names_requirements(self):
        for area, _ in mr.AREAS:
            self.assertRegex(area, r"\([A-Z]+(, [A-Z]+)*", area)


class Triage(Fixture):
    def test_the_key_survives_the_line_moving(self):
        moved = dict(CAP_LT, name="harness-ref/src/cap.rs:2:30: replace < with <= in floor_boundary")
        self.assertEqual(mr.key_of(CAP_LT), mr.key_of(moved))
        self.assertEqual(mr.key_of(CAP_LT), "harness-ref/src/cap.rs: replace < with <= in "
                         "floor_boundary @ while i < text.len() && !text.is_char_boundary(i) {")

    def test_the_key_is_the_line_the_run_mutated_even_after_the_file_changed(self):
        diff = ("--- harness-ref/src/cap.rs\n+++ replace < with <= in floor_boundary\n"
                "@@ -1,3 +1,3 @@\n fn floor_boundary(text: &str, mut i: usize) -> usize {\n"
                "-    while i < text.len() && !text.is_char_boundary(i) {\n"
                "+    while i <= text.len() && !text.is_char_boundary(i) {\n         i -= 1;\n")
        o = outcome(CAP_LT, "MissedMutant")
        o["diff_path"] = "diff/c.diff"
        d = self.out_dir("a", [o])
        (d / "diff").mkdir()
        (d / "diff/c.diff").write_text(diff, encoding="utf-8")
        (self.root / CAP_LT["file"]).write_text("// a line added since the run\n" + SOURCE,
                                                 encoding="utf-8")
        tested = mr.load([str(d)])[CAP_LT["name"]]
        self.assertEqual(mr.key_of(tested.mutant),
                         "harness-ref/src/cap.rs: replace < with <= in floor_boundary @ "
                         "while i < text.len() && !text.is_char_boundary(i) {")
        self.assertIsNone(mr.line_of_diff(diff, 9))

    def test_a_malformed_line_is_an_error_and_comments_are_skipped(self):
        ok = self.triage("# comment\n\nK\tequivalent\tsame output\n")
        self.assertEqual(mr.load_triage(ok), {"K": ("equivalent", "same output")})
        for bad in ("K\tequivalent\n", "K\tfine\twhy\n", "K\tequivalent\t \n"):
            with self.assertRaises(SystemExit, msg=bad):
                mr.load_triage(self.triage(bad))


class Report(Fixture):
    def run_main(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = mr.main(list(args))
        return status, out.getvalue()

    def shards(self):
        log = "Repair: cap/x is FAIL (expected PASS):\ncaught by: CAP-6\n"
        self.out_dir("s/0", [outcome(CAP_LT, "CaughtMutant", "log/c.log"),
                             outcome(CAP_SUB, "Timeout")], {"log/c.log": log})
        self.out_dir("s/1", [outcome(SCHEMA, "MissedMutant"), outcome(GATE, "MissedMutant"),
                             outcome(ODD, "Unviable")])
        return str(self.root / "s")

    def test_counts_per_area_and_file_and_the_rate_without_equivalents(self):
        triage = self.triage(f"{mr.key_of(GATE)}\tequivalent\tthe same answer either way\n")
        status, text = self.run_main("--triage", triage, self.shards())
        self.assertEqual(status, 0)
        self.assertIn("5 mutants: 1 caught, 2 missed, 1 unviable, 1 timeout.", text)
        # Viable: caught + missed + timeout = 4; one missed is equivalent, so 2 of 3 caught.
        self.assertIn("2 of 3 = 66.7%", text)
        self.assertIn("1 untriaged, 0 case, 1 equivalent, 0 unobservable", text)
        self.assertIn("| cap, note, head and tail, strategies (CAP, HT, STRAT) | 2 | 1 | 0 | 0 "
                      "| 1 | 100.0% |", text)
        self.assertIn("| harness-ref/src/lib.rs | 1 | 0 | 0 | 1 | 0 | – |", text)
        self.assertIn("| cap, note, head and tail, strategies (CAP, HT, STRAT) | CAP-6 (1) |", text)
        self.assertIn("median 12 s per mutant", text)
        missed = text[text.index("## Missed mutants"):]
        self.assertLess(missed.index("untriaged"), missed.index("equivalent"))

    def test_the_gate_fails_on_an_untriaged_or_case_triaged_missed_mutant(self):
        shards = self.shards()
        status, text = self.run_main("--gate", self.triage(""), shards)
        self.assertEqual(status, 1)
        self.assertIn(f"MISSED {SCHEMA['name']}", text)
        self.assertIn("2 missed mutant(s)", text)
        case = self.triage(f"{mr.key_of(SCHEMA)}\tcase\tvalidation/x\n"
                           f"{mr.key_of(GATE)}\tunobservable\tthe audit log only\n")
        status, text = self.run_main("--gate", case, shards)
        self.assertEqual(status, 1)
        self.assertIn("1 missed mutant(s)", text)
        accepted = self.triage(f"{mr.key_of(SCHEMA)}\tequivalent\tsame\n"
                               f"{mr.key_of(GATE)}\tunobservable\tthe audit log only\n")
        self.assertEqual(self.run_main("--gate", accepted, shards)[0], 0)

    def test_a_mutant_the_configuration_excludes_is_left_out_and_counted(self):
        # cargo-mutants 27.1 tests "delete field" mutants whatever exclude_re says: the report
        # applies the configuration's exclusions itself.
        config = self.root / ".cargo" / "mutants.toml"
        config.parent.mkdir()
        config.write_text('examine_globs = ["harness-ref/src/**/*.rs"]\n'
                          'exclude_globs = ["harness-ref/src/security/*"]\n'
                          'exclude_re = ["schema\\\\.rs:.*in describe"]\n', encoding="utf-8")
        excluded = mr.exclusions()
        self.assertTrue(excluded(GATE))
        self.assertFalse(excluded(CAP_LT))
        self.assertFalse(excluded(SCHEMA))
        self.assertTrue(excluded({"file": "conformance/adapters/reference/src/names.rs",
                                  "name": "conformance/adapters/reference/src/names.rs:13:5: "
                                          "replace find -> Option<T> with None"}))
        self.assertTrue(excluded({"file": "harness-ref/src/schema.rs",
                                  "name": "harness-ref/src/schema.rs:9:1: delete ! in describe"}))
        shards = self.shards()
        status, text = self.run_main("--gate", self.triage(""), shards)
        self.assertEqual(status, 1)
        self.assertIn("1 missed mutant(s)", text)
        self.assertNotIn(GATE["name"], text)
        status, text = self.run_main(shards)
        self.assertIn("4 mutants: 1 caught, 1 missed, 1 unviable, 1 timeout. 1 more were tested "
                      "although .cargo/mutants.toml excludes them, and are left out.", text)


if __name__ == "__main__":
    unittest.main()
