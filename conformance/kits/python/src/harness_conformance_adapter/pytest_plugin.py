"""pytest plugin: every conformance case as a pytest item, with the runner's verdicts.

    pytest --harness-conformance=my_adapter:adapter
    pytest --harness-conformance=my_adapter:adapter --harness-conformance-run='validation/*'

Why this module exists: a Python project already has a test run; this puts the suite inside it
without changing who judges. The plugin never decides pass or fail itself: it asks the real
`harness-conformance` binary for the case list, runs it once against
`python -m harness_conformance_adapter MODULE:ATTRIBUTE` (JSON report), and turns each case's
verdict into the item's outcome — PASS passes, FAIL / ERROR / BUG IN CASE / STALE fail with the
runner's messages and reproducer, SKIP skips with the reason, XFAIL is an expected failure
(with `--harness-conformance-baseline`). `-k` and `--deselect` narrow the run the runner does.

The runner is `--harness-conformance-runner`, else `$HARNESS_CONFORMANCE`, else
`harness-conformance` on PATH. Loaded through the `pytest11` entry point; inert without
`--harness-conformance`. Imports pytest only when pytest loads it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .errors import ErrorCode, KitError, quote
from .jsonio import loads

_MESSAGE_LIMIT = 4000


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness-conformance", "harness-conformance adapter suite")
    group.addoption("--harness-conformance", metavar="MODULE:ATTRIBUTE", default=None,
                    help="run every conformance case against this Adapter, one pytest item per case")
    group.addoption("--harness-conformance-runner", metavar="PATH", default=None,
                    help="the harness-conformance binary (default: $HARNESS_CONFORMANCE, else PATH)")
    group.addoption("--harness-conformance-run", metavar="GLOB", action="append", default=[],
                    help="only cases whose id matches (repeatable; the runner's --run)")
    group.addoption("--harness-conformance-baseline", metavar="FILE", default=None,
                    help="expected failures (the runner's --baseline): listed failures are xfail")
    group.addoption("--harness-conformance-jobs", metavar="N", default="2",
                    help="adapter processes the runner starts (default 2)")


def find_runner(option: str | None, env: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """The runner binary: the option, else $HARNESS_CONFORMANCE, else PATH (raises KitError)."""
    candidate = option or env.get("HARNESS_CONFORMANCE") or shutil.which("harness-conformance")
    if not candidate:
        raise KitError(ErrorCode.RUNNER_NOT_FOUND,
                       problem="not on PATH; pass --harness-conformance-runner or set HARNESS_CONFORMANCE")
    if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
        raise KitError(ErrorCode.RUNNER_NOT_FOUND, problem=f"{quote(candidate)} is not an executable file")
    return candidate


class _Suite:
    """One runner invocation for the whole session, done when the first item needs it."""

    def __init__(self, config: pytest.Config, runner: str, spec: str) -> None:
        self.config = config
        self.runner = runner
        self.spec = spec
        self.listed: list[str] = []
        self.selected: list[str] = []
        self.outcomes: dict[str, dict[str, Any]] | None = None
        self.failure: str | None = None

    def harness_command(self) -> str:
        return f"{shlex.quote(sys.executable)} -m harness_conformance_adapter {shlex.quote(self.spec)}"

    def list_cases(self) -> list[str]:
        args = [self.runner, "list"]
        for glob in self.config.getoption("--harness-conformance-run"):
            args += ["--run", glob]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise KitError(ErrorCode.RUNNER_FAILED, problem=f"`list` exited {done.returncode}: {done.stderr[-500:]}")
        self.listed = [line.split("\t", 1)[0] for line in done.stdout.splitlines() if line.strip()]
        return self.listed

    def run(self) -> dict[str, dict[str, Any]]:
        if self.outcomes is not None:
            return self.outcomes
        if self.failure is not None:
            raise KitError(ErrorCode.RUNNER_FAILED, problem=self.failure)
        with tempfile.TemporaryDirectory(prefix="harness-conformance-") as tmp:
            report = Path(tmp) / "report.jsonl"
            args = [self.runner, "run", "--harness", self.harness_command(), "--format", "json",
                    "-o", str(report), "--quiet", "--jobs", str(self.config.getoption("--harness-conformance-jobs"))]
            if self.selected != self.listed:  # -k or --deselect narrowed the list: run only those
                args += ["--run", ",".join(self.selected)]
            else:
                for glob in self.config.getoption("--harness-conformance-run"):
                    args += ["--run", glob]
            baseline = self.config.getoption("--harness-conformance-baseline")
            if baseline:
                args += ["--baseline", str(baseline)]
            done = subprocess.run(args, capture_output=True, text=True, check=False,
                                  cwd=str(self.config.invocation_params.dir))
            outcomes: dict[str, dict[str, Any]] = {}
            if report.exists():
                for line in report.read_text(encoding="utf-8").splitlines():
                    entry = loads(line)
                    if isinstance(entry, dict) and entry.get("type") == "case":
                        outcomes[str(entry.get("id"))] = entry
        if not outcomes:
            self.failure = f"`run` exited {done.returncode} with no report: {done.stderr[-1000:]}"
            raise KitError(ErrorCode.RUNNER_FAILED, problem=self.failure)
        self.outcomes = outcomes
        return outcomes


class ConformanceFailure(Exception):
    """A case the runner judged FAIL, ERROR, BUG IN CASE or STALE."""


class ConformanceItem(pytest.Item):
    """One case; its outcome is the runner's verdict."""

    def __init__(self, *, suite: _Suite, case_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case_id = case_id

    def runtest(self) -> None:
        outcome = self.suite.run().get(self.case_id)
        if outcome is None:
            raise ConformanceFailure(f"the runner reported nothing for {self.case_id}")
        verdict = outcome.get("verdict")
        messages = [str(m) for m in outcome.get("messages") or []]
        if verdict == "PASS":
            return
        if verdict == "SKIP":
            pytest.skip("; ".join(messages)[:_MESSAGE_LIMIT] or "skipped by the runner")
        if verdict == "XFAIL":
            pytest.xfail(str(outcome.get("baseline") or "; ".join(messages))[:_MESSAGE_LIMIT])
        text = [f"{verdict}: {self.case_id}", *messages]
        if outcome.get("baseline"):
            text.append(f"baseline: {outcome['baseline']}")
        if outcome.get("reproduce"):
            text.append(f"reproduce: {outcome['reproduce']}")
        raise ConformanceFailure("\n".join(text)[:_MESSAGE_LIMIT])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, (ConformanceFailure, KitError)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "harness-conformance", None, self.case_id


class _Cases(pytest.Collector):
    """The collector the case items hang from (one per session)."""

    def __init__(self, *, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def collect(self) -> Iterator[pytest.Item]:
        for case_id in self.suite.list_cases():
            yield ConformanceItem.from_parent(self, name=case_id, suite=self.suite, case_id=case_id)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    spec = config.getoption("--harness-conformance")
    if not spec:
        return
    suite = _Suite(config, find_runner(config.getoption("--harness-conformance-runner")), spec)
    collector = _Cases.from_parent(session, name="harness-conformance", suite=suite)
    cases = list(collector.collect())
    # Reported like any collected node, so pytest's "collected N items" counts the cases.
    nodes: list[pytest.Item | pytest.Collector] = list(cases)
    config.hook.pytest_collectreport(report=pytest.CollectReport(collector.nodeid, "passed", None, nodes))
    items.extend(cases)
    config.stash[_SUITE] = suite


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    suite = session.config.stash.get(_SUITE, None)
    if suite is not None:
        chosen = [item.case_id for item in session.items if isinstance(item, ConformanceItem)]
        suite.selected = chosen


_SUITE = pytest.StashKey[_Suite]()
