"""Tests of the GitHub Action's logic (ci/gate_action.py), run on this machine: the real runner
against the reference adapter and its deliberately broken variants, with fake
GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files; and a fake runner whose report carries hostile text,
to show that nothing an adapter says escapes its bounds or becomes a workflow command.

    HARNESS_CONFORMANCE=path/to/harness-conformance HARNESS_REF_ADAPTER=path/to/harness-ref-adapter \
        python3 -m unittest discover -s ci -p 'test_gate_action.py'

Both default to target/release/ (ci/packages.sh points HARNESS_CONFORMANCE at the binary the
wheel installed, which is what the action runs).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = HERE / "gate_action.py"
sys.path.insert(0, str(HERE))
import gate_action  # noqa: E402

RUNNER = os.environ.get("HARNESS_CONFORMANCE") or str(ROOT / "target/release/harness-conformance")
ADAPTER = os.environ.get("HARNESS_REF_ADAPTER") or str(ROOT / "target/release/harness-ref-adapter")


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


class GateRun:
    """One `gate_action.py run` in a scratch folder, with fake GitHub files."""

    def __init__(self, tmp: Path, adapter: str, runner: str = RUNNER, **env: str):
        self.summary, self.output = tmp / "summary.md", tmp / "output.txt"
        self.reports = tmp / "reports"
        full = {
            **os.environ,
            "HARNESS_CONFORMANCE": runner,
            "GATE_ADAPTER": adapter,
            "GATE_REPORT_DIR": str(self.reports),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_OUTPUT": str(self.output),
            **env,
        }
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "run"], env=full, capture_output=True, text=True, timeout=600
        )
        self.status, self.log, self.stderr = done.returncode, done.stdout, done.stderr
        self.outputs = outputs(self.output) if self.output.exists() else {}

    def cases(self) -> list[dict]:
        lines = (self.reports / "conformance.jsonl").read_text().splitlines()
        return [v for v in map(json.loads, lines) if v.get("type") == "case"]

    def annotations(self) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith("::error")]

    def groups(self) -> list[str]:
        return [line[len("::group::"):] for line in self.log.splitlines() if line.startswith("::group::")]


def live_commands(log: str) -> list[str]:
    """The workflow commands GitHub would act on: lines starting with `::` after leading blanks
    (the runner trims them), skipping everything between `::stop-commands::TOKEN` and
    `::TOKEN::`."""
    live, stop = [], None
    for line in (raw.lstrip() for raw in log.splitlines()):
        if stop is not None:
            if line == f"::{stop}::":
                stop = None
            continue
        m = re.match(r"^::stop-commands::(.+)$", line)
        if m:
            stop = m.group(1)
        elif line.startswith("::"):
            live.append(line)
    return live


class TruncateMarkdown(unittest.TestCase):
    """The step summary's bound, on its own (no binaries needed)."""

    def test_a_summary_never_exceeds_its_limit_however_small(self):
        # Issue 28, N17: GATE_SUMMARY_LIMIT=100 wrote 216 bytes (the note alone was over it).
        text = "".join(f"- line {i} with `code` and é\n" for i in range(2000)) + "```\nopen fence\n"
        where = "`summary.md` in the `conformance-report` artifact"
        for budget in [0, 1, 40, 100, 216, 300, 599, 600, 3000, 50_000]:
            cut = gate_action.truncate_markdown(text, budget, where)
            self.assertLessEqual(len(cut.encode("utf-8")), budget, budget)
            if budget >= 300:
                self.assertIn("Summary truncated", cut)
        self.assertEqual(gate_action.truncate_markdown("short\n", 100, where), "short\n")


@unittest.skipUnless(Path(RUNNER).exists() and Path(ADAPTER).exists(), "needs the release binaries")
class AgainstTheReferenceAdapter(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="gate-action-"))

    def test_reference_passes_with_every_report_and_a_summary(self):
        run = GateRun(self.tmp, ADAPTER)
        self.assertEqual(run.status, 0, run.log + run.stderr)
        self.assertEqual(run.outputs["ok"], "true")
        self.assertEqual(run.outputs["unexpected"], "0")
        self.assertEqual(run.outputs["exit-code"], "0")
        cases = run.cases()
        self.assertGreater(len(cases), 0)
        # The reference passes every case it runs; it skips only the cases that need what it
        # does not declare: `feature.repair` (its `repairs-double-encoded` configuration does)
        # and `wrapper` (harness-ref wraps no result). Any other skip is a regression.
        passed = [c for c in cases if c["verdict"] == "PASS"]
        skipped = [c for c in cases if c["verdict"] == "SKIP"]
        self.assertEqual(len(passed) + len(skipped), len(cases))
        self.assertGreater(len(skipped), 0)
        undeclared = {"needs `feature.repair` (not declared by the adapter)",
                      "needs `wrapper` (not declared by the adapter)"}
        self.assertTrue(all(c["messages"] and set(c["messages"]) <= undeclared for c in skipped),
                        [(c["id"], c["messages"]) for c in skipped if not set(c["messages"]) <= undeclared])
        self.assertTrue(any(c["id"].startswith("repair/") for c in skipped), skipped)
        junit = ET.parse(run.reports / "conformance.xml").getroot()
        self.assertEqual(len(junit.findall(".//testcase")), len(cases))
        summary = run.summary.read_text()
        self.assertEqual(summary, (run.reports / "summary.md").read_text())
        self.assertIn(f"{len(passed)} PASS", summary)
        self.assertEqual(run.annotations(), [])
        self.assertEqual(run.groups(), [])

    def test_every_failure_is_grouped_with_its_reproducer_and_the_first_are_annotated(self):
        adapter = f"{shlex.quote(ADAPTER)} --fault error-as-success"
        run = GateRun(self.tmp, adapter, GATE_ARGS="--run 'outcomes/*'")
        self.assertEqual(run.status, 1, run.stderr)
        self.assertEqual(run.outputs["ok"], "false")
        failed = [c for c in run.cases() if c["verdict"] == "FAIL"]
        self.assertGreater(len(failed), gate_action.ANNOTATION_LIMIT)
        self.assertEqual(run.outputs["unexpected"], str(len(failed)))
        groups = run.groups()
        self.assertEqual(len(groups), len(failed))
        for case, title in zip(failed, groups):
            self.assertTrue(title.startswith(f"FAIL {case['id']} ["), title)
        for case in failed:
            self.assertIn(f"  reproduce: {case['reproduce']}", run.log)
        # The reproducer reproduces: it runs that case alone and fails it.
        one = subprocess.run(
            failed[0]["reproduce"].replace("harness-conformance", shlex.quote(RUNNER), 1) + " --quiet",
            shell=True, capture_output=True, text=True,
        )
        self.assertEqual(one.returncode, 1, one.stdout + one.stderr)
        self.assertIn("1 FAIL", one.stdout)
        notes = run.annotations()
        self.assertEqual(len(notes), gate_action.ANNOTATION_LIMIT)
        summary = [v for v in map(json.loads, (run.reports / "conformance.jsonl").read_text().splitlines())
                   if v.get("type") == "summary"][0]
        self.assertIn("the run failed::", notes[0])
        for reason in summary["failure_reasons"]:
            self.assertIn(reason, notes[0])
        for case, note in zip(failed, notes[1:-1]):
            self.assertIn(f"FAIL {case['id']}", note)
        rest = len(failed) - (gate_action.ANNOTATION_LIMIT - 2)
        self.assertIn(f"{rest} more unexpected results", notes[-1])
        # Every workflow command outside the inert blocks is ours: groups and annotations.
        for line in live_commands(run.log):
            self.assertRegex(line, r"^::(group::|endgroup::$|error title=)")

    def test_a_baseline_of_the_failures_passes_and_a_stale_entry_fails(self):
        adapter = f"{shlex.quote(ADAPTER)} --fault error-as-success"
        baseline = self.tmp / "baseline.json"
        subprocess.run(
            [RUNNER, "run", "--harness", adapter, "--run", "outcomes/*", "--quiet",
             "--write-baseline", str(baseline)],
            capture_output=True,
        )
        listed = json.loads(baseline.read_text())["cases"]
        self.assertGreater(len(listed), 0)
        run = GateRun(self.tmp / "a", adapter, GATE_BASELINE=str(baseline), GATE_ARGS="--run outcomes/*")
        self.assertEqual(run.status, 0, run.log + run.stderr)
        self.assertEqual(run.annotations(), [])
        self.assertEqual(sum(c["verdict"] == "XFAIL" for c in run.cases()), len(listed))
        # Against the correct harness every entry is stale: each is reported, with what to do.
        run = GateRun(self.tmp / "b", ADAPTER, GATE_BASELINE=str(baseline), GATE_ARGS="--run outcomes/*")
        self.assertEqual(run.status, 1)
        self.assertEqual(run.outputs["unexpected"], str(len(listed)))
        self.assertIn("delete its entry from the baseline", run.log)

    def test_a_summary_over_the_limit_is_cut_with_a_note(self):
        adapter = f"{shlex.quote(ADAPTER)} --fault error-as-success"
        limit = 3000
        run = GateRun(self.tmp, adapter, GATE_SUMMARY_LIMIT=str(limit), GATE_ARGS="--run outcomes/*")
        full = (run.reports / "summary.md").read_bytes()
        self.assertGreater(len(full), limit)
        summary = run.summary.read_bytes()
        self.assertLessEqual(len(summary), limit)
        self.assertTrue(full.startswith(summary.split(b"\n> **Summary truncated.**")[0]))
        self.assertIn(f"The Markdown report is {len(full):,} bytes".encode(), summary)
        self.assertIn(b"`summary.md` in the `conformance-report` artifact", summary)

    def test_the_real_summary_of_a_badly_broken_harness_fits_github(self):
        run = GateRun(self.tmp, f"{shlex.quote(ADAPTER)} --fault error-as-success")
        self.assertLessEqual(run.summary.stat().st_size, gate_action.SUMMARY_LIMIT)

    def test_an_adapter_that_fails_the_handshake_says_so_first(self):
        run = GateRun(self.tmp, "echo not-a-handshake")
        self.assertNotEqual(run.status, 0)
        self.assertEqual(run.outputs["ok"], "false")
        notes = run.annotations()
        self.assertTrue(notes, run.log)
        self.assertIn("the run failed::", notes[0])
        self.assertIn("handshake", notes[0])

    def test_a_failed_handshake_exits_2_and_its_cause_is_annotated_and_logged(self):
        # Issue 29: the cause (here the missing kit) used to be in no annotation, and a failed
        # handshake exited 1 like a failing case.
        adapter = f"{shlex.quote(sys.executable)} -c 'import harness_conformance_adapter_missing'"
        run = GateRun(self.tmp, adapter, GATE_ARGS="--run 'outcomes/*'")
        self.assertEqual(run.status, 2, run.log + run.stderr)
        self.assertEqual(run.outputs["exit-code"], "2")
        notes = run.annotations()
        self.assertEqual(len(notes), 1, run.log)
        self.assertIn("No module named", notes[0])
        self.assertTrue(any(g.startswith("the handshake failed") for g in run.groups()), run.log)
        self.assertIn("No module named", run.summary.read_text())
        junit = ET.parse(run.reports / "conformance.xml")
        errors = list(junit.iter("error"))
        self.assertTrue(errors)
        for e in errors:
            self.assertIn("No module named", e.get("message", ""))

    def test_a_runner_that_refuses_reports_a_clear_error(self):
        bad = self.tmp / "not-a-baseline.json"
        bad.write_text("[1, 2")
        run = GateRun(self.tmp, ADAPTER, GATE_BASELINE=str(bad))
        self.assertEqual(run.status, 2)
        self.assertEqual(run.outputs["ok"], "false")
        self.assertIn("without a report", "\n".join(run.annotations()))


FAKE_RUNNER = r'''#!/usr/bin/env python3
# A runner whose report carries hostile text: workflow commands, line breaks, huge messages.
import json, sys
args = sys.argv[1:]
if args[:1] == ["report"]:
    sys.exit(2)
out = args[args.index("-o") + 1]
fmt = args[args.index("--format") + 1]
evil = "::set-output name=ok::true\n::add-mask::x\r\n" + "A" * 50000
print("::warning::from the runner's stderr", file=sys.stderr)
lines = [{"type": "start"}]
for i in range(3):
    lines.append({"type": "case", "id": f"x/{i}\n::error::injected", "verdict": "FAIL",
                  "requirements": ["VAL-1"], "level": "MUST", "messages": [evil] * 30,
                  "reproduce": "harness-conformance run --run x\n::error::again"})
lines.append({"type": "summary", "ok": False, "totals": {"FAIL": 3}})
with open(out, "w") as f:
    if fmt == "json":
        f.write("".join(json.dumps(l) + "\n" for l in lines))
    elif fmt == "markdown":
        f.write("## report\n\n```\n" + ("line\n" * 5000))
    else:
        f.write("<testsuites/>\n")
sys.exit(1)
'''


class AgainstHostileReports(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="gate-action-"))
        self.fake = self.tmp / "fake-runner"
        self.fake.write_text(FAKE_RUNNER)
        self.fake.chmod(0o755)

    def test_nothing_from_the_report_becomes_a_command_or_exceeds_its_bound(self):
        run = GateRun(self.tmp, "unused", runner=str(self.fake), GATE_SUMMARY_LIMIT="4000")
        self.assertEqual(run.status, 1)
        self.assertEqual(run.outputs["ok"], "false")
        self.assertEqual(run.outputs["unexpected"], "3")
        live = live_commands(run.log)
        self.assertEqual(sum(line.startswith("::group::") for line in live), 3)
        self.assertEqual(sum(line.startswith("::error title=") for line in live), 3)
        for line in live:
            self.assertRegex(line, r"^::(group::|endgroup::$|error title=)")
            self.assertNotIn("\r", line)
        for line in run.log.splitlines():
            self.assertLess(len(line), gate_action.MESSAGE_CHARS * 2 + 200)
        self.assertIn(f"more messages in the JSON report", run.log)
        # The cut summary closes the code fence it cut through.
        summary = run.summary.read_text()
        self.assertLessEqual(len(summary.encode()), 4000)
        self.assertEqual(summary.count("```") % 2, 0)
        self.assertIn("Summary truncated", summary)


class Units(unittest.TestCase):
    def test_bounded_escapes_controls_and_cuts(self):
        self.assertEqual(gate_action.bounded("a\nb\x1b[31m", 100), "a\\u{a}b\\u{1b}[31m")
        self.assertEqual(gate_action.bounded("x" * 10, 4), "xxxx… (6 more chars)")

    def test_command_escaping(self):
        self.assertEqual(gate_action.command_data("50%\r\n::x"), "50%25%0D%0A::x")
        self.assertEqual(gate_action.command_property("a:b,c"), "a%3Ab%2Cc")

    def test_truncation_keeps_whole_lines_within_budget(self):
        text = "".join(f"line {i} é\n" for i in range(1000))
        for budget in (700, 1000, 5000):
            cut = gate_action.truncate_markdown(text, budget, "elsewhere")
            self.assertLessEqual(len(cut.encode()), budget)
            kept = cut.split("\n> **Summary truncated.**")[0]
            self.assertTrue(text.startswith(kept))
        self.assertEqual(gate_action.truncate_markdown(text, 10**6, "x"), text)

    def test_an_annotation_names_the_requirement_whose_check_failed(self):
        # Issue 29: the title named the case's declared requirements (STRAT-1, OUT-1, VAL-7),
        # not the one whose check failed (CAP-1).
        case = {"verdict": "FAIL", "id": "cap/x", "level": "MUST",
                "requirements": ["STRAT-1", "OUT-1", "VAL-7"],
                "checks": [{"kind": "answered", "requirement": "OUT-1"},
                           {"kind": "cap.within", "requirement": "CAP-1", "failure": "over"},
                           {"kind": "is_error", "requirement": "VAL-7", "failure": None}]}
        self.assertEqual(gate_action.describe(case), "FAIL cap/x [fails CAP-1; MUST]")
        self.assertEqual(gate_action.describe({"verdict": "ERROR", "id": "a/b", "level": "MUST"}),
                         "ERROR a/b [MUST]")

    def test_the_kit_is_told_from_the_adapter_command(self):
        kit = gate_action.kit_for
        self.assertEqual(kit("python3 conformance/adapter.py", "auto"), "python")
        self.assertEqual(kit(".venv/bin/python -m my_adapter", ""), "python")
        self.assertEqual(kit("node conformance/dist/adapter.mjs", "auto"), "typescript")
        self.assertEqual(kit("npx tsx adapter.ts", "auto"), "typescript")
        self.assertIsNone(kit("./target/release/my-adapter", "auto"))
        self.assertEqual(kit("./my-adapter", "Python"), "python")
        self.assertIsNone(kit("python3 a.py", "none"))
        with self.assertRaises(gate_action.GateError):
            kit("python3 a.py", "rust")

    def test_workspace_version_reads_only_the_workspace_section(self):
        toml = '[package]\nversion = "9.9.9"\n[workspace.package]\nversion = "1.2.3" # suite\n'
        self.assertEqual(gate_action.workspace_version(toml), "1.2.3")
        self.assertIsNone(gate_action.workspace_version('[package]\nversion = "1"\n'))
        here = gate_action.workspace_version((ROOT / "Cargo.toml").read_text())
        self.assertRegex(here, r"^\d+\.\d+\.\d+")

    def test_resolve_refuses_a_version_that_is_not_one(self):
        env = {**os.environ, "GATE_VERSION": "1.0.0; rm -rf /", "GITHUB_OUTPUT": os.devnull}
        done = subprocess.run([sys.executable, str(SCRIPT), "resolve"], env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("is not a version number", done.stdout)

    def test_resolve_defaults_to_the_suite_version(self):
        out = Path(tempfile.mkdtemp()) / "out"
        env = {**os.environ, "GATE_VERSION": "", "GITHUB_OUTPUT": str(out), "GATE_INSTALL_DIR": "/opt/x"}
        subprocess.run([sys.executable, str(SCRIPT), "resolve"], env=env, check=True, capture_output=True)
        got = outputs(out)
        want = gate_action.workspace_version((ROOT / "Cargo.toml").read_text())
        self.assertEqual(got["version"], want)
        self.assertEqual(got["binary"], f"/opt/x/{want}/bin/harness-conformance")

    def test_args_may_not_override_what_the_action_sets(self):
        env = {**os.environ, "GATE_ADAPTER": "x", "GATE_ARGS": "--format junit"}
        done = subprocess.run([sys.executable, str(SCRIPT), "run"], env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("may not set --format", done.stdout)


if __name__ == "__main__":
    unittest.main()
