"""The pytest plugin maps each runner verdict onto a pytest outcome, and narrows the run with -k.

The plugin is loaded through its pytest11 entry point, as for a user. A stand-in runner (a script answering `list` and `run` like harness-conformance, and recording how
it was called) keeps these tests fast and exact; ci/kits.sh runs the plugin against the real runner.
"""

import json
import os
import stat
import sys
import textwrap

import pytest

from harness_conformance_adapter import ErrorCode, KitError
from harness_conformance_adapter.pytest_plugin import find_runner

FAKE_RUNNER = textwrap.dedent('''\
    #!{python}
    import json, sys
    args = sys.argv[1:]
    with open({calls!r}, "a") as log:
        log.write(json.dumps(args) + "\\n")
    cases = {{
        "area/passes": {{"verdict": "PASS", "messages": []}},
        "area/fails": {{"verdict": "FAIL", "messages": ["expected is_error true, got false"],
                        "reproduce": "harness-conformance run --run area/fails"}},
        "area/skips": {{"verdict": "SKIP", "messages": ["needs cap.configurable"]}},
        "area/xfails": {{"verdict": "XFAIL", "messages": ["m"], "baseline": "known: coerces"}},
        "other/errors": {{"verdict": "ERROR", "messages": ["adapter failed: KeyError"]}},
    }}
    if args[0] == "list":
        for case_id in cases:
            print(case_id + "\\tREQ-1\\tdescription")
    elif args[0] == "run":
        out = args[args.index("-o") + 1]
        wanted = args[args.index("--run") + 1].split(",") if "--run" in args else list(cases)
        with open(out, "w") as report:
            report.write(json.dumps({{"type": "start"}}) + "\\n")
            for case_id in wanted:
                report.write(json.dumps({{"type": "case", "id": case_id, **cases[case_id]}}) + "\\n")
        sys.exit(1)
''')


@pytest.fixture
def runner(tmp_path):
    path = tmp_path / "fake-runner"
    calls = tmp_path / "calls.jsonl"
    path.write_text(FAKE_RUNNER.format(python=sys.executable, calls=str(calls)))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path, calls


def run_plugin(pytester, runner, *extra):
    path, calls = runner
    pytester.makepyfile(my_adapter="adapter = None  # the fake runner never starts it\n")
    result = pytester.runpytest_subprocess(
                                           "--harness-conformance=my_adapter:adapter",
                                           f"--harness-conformance-runner={path}", "-rsxf", *extra)
    return result, [json.loads(line) for line in calls.read_text().splitlines()]


def test_every_verdict_becomes_the_matching_pytest_outcome(pytester, runner):
    result, calls = run_plugin(pytester, runner)
    result.assert_outcomes(passed=1, failed=2, skipped=1, xfailed=1)
    text = result.stdout.str()
    assert "FAIL: area/fails" in text and "expected is_error true, got false" in text
    assert "reproduce: harness-conformance run --run area/fails" in text
    assert "ERROR: other/errors" in text and "needs cap.configurable" in text and "known: coerces" in text
    run = calls[1]
    assert calls[0] == ["list"] and run[0] == "run" and "--run" not in run
    command = run[run.index("--harness") + 1]
    assert command.endswith("-m harness_conformance_adapter my_adapter:adapter")


def test_k_narrows_the_cases_the_runner_runs(pytester, runner):
    result, calls = run_plugin(pytester, runner, "-k", "passes or errors")
    result.assert_outcomes(passed=1, failed=1)
    assert "collected 5 items / 3 deselected / 2 selected" in result.stdout.str()
    run = calls[1]
    assert run[run.index("--run") + 1] == "area/passes,other/errors"


def test_without_the_option_the_plugin_does_nothing(pytester):
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)


def test_a_missing_runner_is_a_clear_error(tmp_path):
    with pytest.raises(KitError) as info:
        find_runner(None, {"PATH": str(tmp_path)})
    assert info.value.code is ErrorCode.RUNNER_NOT_FOUND
    with pytest.raises(KitError):
        find_runner(str(tmp_path / "nope"), {})
    exe = tmp_path / "harness-conformance"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert find_runner(None, {"HARNESS_CONFORMANCE": str(exe), "PATH": os.defpath}) == str(exe)
