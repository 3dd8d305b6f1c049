"""Tests of harness_table.py: the README's and docs/harnesses.md's counts from a saved report."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import harness_table  # noqa: E402


def report(verdicts, requirements):
    lines = [{"type": "start"}]
    lines += [{"type": "case", "id": f"c{i}", "verdict": v} for i, v in enumerate(verdicts)]
    lines.append({"type": "summary", "requirements": [
        {"id": f"R-{i}", "level": level, "status": status} for i, (level, status) in enumerate(requirements)
    ]})
    f = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8")
    f.write("\n".join(json.dumps(line) for line in lines) + "\n")
    f.close()
    return f.name


class Row(unittest.TestCase):
    def setUp(self):
        self.path = report(
            ["PASS", "STALE", "FAIL", "XFAIL", "ERROR", "SKIP", "NEW SKIP"],
            [("MUST", "PASS"), ("MUST", "FAIL"), ("MUST", "XFAIL"), ("MUST", "NOT TESTABLE"),
             ("MUST", "NOT EVALUATED"), ("MUST", "NOT APPLICABLE"), ("SHOULD", "PASS")],
        )
        self.name = os.path.basename(self.path).rsplit(".", 1)[0]

    def tearDown(self):
        os.unlink(self.path)

    def test_a_baselined_failure_counts_as_a_failure_and_stale_as_a_pass(self):
        self.assertEqual(
            harness_table.row(self.path),
            f"| {self.name} | 2 | 3 | 2 | 2 of 3 tested, 1 not testable, 1 not evaluated, 1 not applicable |",
        )

    def test_the_detail_splits_must_and_should_by_status(self):
        self.assertEqual(
            harness_table.row(self.path, detail=True),
            f"| {self.name} | 2 | 3 | 2 | 1 / 2 / 1 / 1 / 1 | 1 / 0 / 0 / 0 / 0 |",
        )

    def test_an_interrupted_run_is_refused(self):
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(json.dumps({"type": "case", "id": "c", "verdict": "PASS"}) + "\n")
        with self.assertRaises(SystemExit):
            harness_table.row(self.path)


if __name__ == "__main__":
    unittest.main()
