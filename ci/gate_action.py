#!/usr/bin/env python3
"""The logic of the repository's GitHub Action (`action.yml`): install the runner, run the gate,
and tell GitHub what happened.

It lives here, not in action.yml, so it can be tested on any machine: `ci/test_gate_action.py`
runs it against the reference adapter with fake `GITHUB_STEP_SUMMARY`/`GITHUB_OUTPUT` files.
Python's standard library only, because every GitHub runner has Python and the action installs
the runner with pip anyway.

    gate_action.py resolve   the runner version (input `version`, else the suite version of the
                             action's own checkout) and where it is installed -> $GITHUB_OUTPUT
    gate_action.py install   pip-installs that version there unless it already is (the action
                             caches the folder by version, so this usually does nothing), and
                             the adapter kit for the adapter's language: the Python kit beside
                             it (put on PYTHONPATH for the adapter), the TypeScript kit into the
                             project's node_modules unless it is there already
    gate_action.py run       runs the suite against the adapter with the baseline, writes the
                             JSON, JUnit and Markdown reports, prints every unexpected result with
                             its reproducer in a log group, annotates the first ones as errors,
                             writes a step summary within GitHub's 1 MiB limit, and exits with the
                             runner's status

Inputs come from the environment (action.yml maps its inputs onto these names):
GATE_VERSION, GATE_INSTALL_DIR, GATE_ADAPTER, GATE_KIT (auto, python, typescript or none),
GATE_PACKAGES (a folder of package files to install from instead of PyPI and npm: the release
workflow's smoke job and ci/packages.sh use it), GATE_BASELINE, GATE_ARGS, GATE_REPORT_DIR,
GATE_ARTIFACT, GATE_SUMMARY_LIMIT (bytes; tests set it low), GATE_KIT_PYTHONPATH (set by
`install`), and HARNESS_CONFORMANCE (the runner binary; default: the one on PATH).

Exit statuses are the runner's: 0 the gate passed, 1 the harness failed cases, 2 the run could
not judge (the handshake failed, a usage error, an unreadable file, a bad input of the action).

Everything that comes from the adapter or a case file (ids, messages, reproducers) is bounded and
escaped before it reaches the log, an annotation, the summary or an output, and the runner's own
output and every failure's details are wrapped in `::stop-commands::`, so no line an adapter
influenced is read as a workflow command.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import subprocess
import sys
from pathlib import Path

# GitHub refuses a step summary over 1 MiB; stay a little under it.
SUMMARY_LIMIT = 1024 * 1024 - 4096
# GitHub shows at most 10 error annotations per step; more are dropped without a word.
ANNOTATION_LIMIT = 10
# Bounds on what one unexpected result may print.
MESSAGE_CHARS = 2000
MESSAGES_PER_CASE = 20
ID_CHARS = 200
# Verdicts that fail a gate (the JSON report also marks them with a `reproduce` field).
UNEXPECTED = {"FAIL", "ERROR", "BUG IN CASE", "STALE", "NEW SKIP"}
VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)*([-.+]?[0-9A-Za-z]+)*$")


class GateError(Exception):
    """A problem with the action's inputs or environment, reported as one ::error line."""


# ---------------------------------------------------------------- bounding and escaping


def bounded(text: object, limit: int) -> str:
    """`text` as one safe string: control characters (newlines included) shown as escapes,
    at most `limit` characters, with a note saying how much was cut."""
    s = str(text)
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\t":
            out.append(" ")
        elif o < 0x20 or o == 0x7F or 0x80 <= o < 0xA0 or ch in "\u2028\u2029":
            out.append(f"\\u{{{o:x}}}")
        else:
            out.append(ch)
    s = "".join(out)
    if len(s) > limit:
        cut = len(s) - limit
        s = s[:limit] + f"… ({cut} more chars)"
    return s


def command_data(s: str) -> str:
    """Escapes the message part of a workflow command (`::error ...::DATA`)."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(s: str) -> str:
    """Escapes a property value of a workflow command (`title=VALUE`)."""
    return command_data(s).replace(":", "%3A").replace(",", "%2C")


def truncate_markdown(text: str, budget: int, where: str) -> str:
    """`text` cut to at most `budget` UTF-8 bytes at a line end, with a note saying what was left
    out and where the whole report is; an open code fence is closed first. The note is counted
    in the budget: a budget too small for the full note gets a shorter one, and one too small
    for any note gets nothing (never more than `budget` bytes)."""
    data = text.encode("utf-8")
    if len(data) <= budget:
        return text
    lines = text.splitlines(keepends=True)
    fence = "```\n"

    def full(left_lines: int, left_bytes: int) -> str:
        return (
            f"\n> **Summary truncated.** The Markdown report is {len(data):,} bytes and a step summary "
            f"may hold {budget:,}: the last {left_lines:,} lines ({left_bytes:,} bytes) are left out "
            f"here. The whole report is {where}.\n"
        )

    notes = [
        full,
        lambda _lines, _bytes: f"\n> **Summary truncated.** The whole report is {where}.\n",
        lambda _lines, _bytes: "\n> **Summary truncated.**\n",
    ]
    for note in notes:
        # The longest this note can be (every line left out), and a closing fence.
        reserve = len(note(len(lines), len(data)).encode("utf-8")) + len(fence)
        if reserve <= budget:
            break
    else:
        return ""
    kept: list[str] = []
    size = 0
    for line in lines:
        n = len(line.encode("utf-8"))
        if size + n + 1 > budget - reserve:  # +1: a newline added to an unterminated last line
            break
        kept.append(line)
        size += n
    left_lines = len(lines) - len(kept)
    left_bytes = len(data) - size
    body = "".join(kept)
    if body and not body.endswith("\n"):
        body += "\n"
    if sum(1 for line in kept if line.lstrip().startswith("```")) % 2 == 1:
        body += fence
    return body + note(left_lines, left_bytes)


def append_output(name: str, value: str) -> None:
    """One `name=value` line in $GITHUB_OUTPUT (values here never contain a newline)."""
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    if "\n" in value or "\r" in value:
        raise GateError(f"output {name} would contain a line break")
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{name}={value}\n")


def write_summary(markdown: str, where: str) -> int:
    """Appends the report to $GITHUB_STEP_SUMMARY within the limit; returns the bytes written."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return 0
    limit = int(os.environ.get("GATE_SUMMARY_LIMIT") or SUMMARY_LIMIT)
    used = os.path.getsize(path) if os.path.exists(path) else 0
    text = truncate_markdown(markdown, max(limit - used, 0), where)
    data = text.encode("utf-8")
    with open(path, "ab") as f:
        f.write(data)
    return len(data)


# ---------------------------------------------------------------- resolve / install


def workspace_version(cargo_toml: str) -> str | None:
    """`[workspace.package] version` of a Cargo.toml: the suite version (docs/versioning.md)."""
    section = None
    for raw in cargo_toml.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section == "[workspace.package]":
            m = re.match(r'^version\s*=\s*"([^"]+)"\s*(#.*)?$', line)
            if m:
                return m.group(1)
    return None


def resolve() -> tuple[str, Path, Path]:
    """(version, install folder, binary path) for this action run."""
    version = os.environ.get("GATE_VERSION", "").strip()
    if not version:
        cargo = Path(__file__).resolve().parent.parent / "Cargo.toml"
        found = workspace_version(cargo.read_text(encoding="utf-8")) if cargo.exists() else None
        if not found:
            raise GateError(f"no `version` input and no suite version in {cargo}")
        version = found
    if not VERSION_RE.match(version) or len(version) > 64:
        raise GateError(f"version {bounded(version, 80)!r} is not a version number")
    base = os.environ.get("GATE_INSTALL_DIR") or os.path.join(
        os.environ.get("RUNNER_TOOL_CACHE") or os.path.expanduser("~/.cache"), "harness-conformance"
    )
    folder = Path(base) / version
    exe = "harness-conformance.exe" if os.name == "nt" else "harness-conformance"
    scripts = "Scripts" if os.name == "nt" else "bin"
    return version, folder, folder / scripts / exe


KITS = ("python", "typescript")
PYTHON_KIT = "harness-conformance-adapter"
TYPESCRIPT_KIT = "@harness-conformance/adapter"
PYTHON_RE = re.compile(r"^(python|pypy)[0-9.]*$")
NODE_PROGRAMS = {"node", "npx", "tsx", "ts-node", "bun", "deno"}


def kit_for(adapter: str, kit: str) -> str | None:
    """The kit to install: the `kit` input when it names one (`none`: no kit), else told from
    the adapter command — a Python interpreter or a `.py` file is Python; node, npx, tsx, bun,
    deno or a `.js`/`.mjs`/`.cjs`/`.ts`/`.mts` file is TypeScript; anything else, none."""
    kit = (kit or "auto").strip().lower()
    if kit == "none":
        return None
    if kit in KITS:
        return kit
    if kit != "auto":
        raise GateError(f"the `kit` input is {bounded(kit, 40)!r}: use auto, python, typescript or none")
    try:
        words = shlex.split(adapter)
    except ValueError:
        words = adapter.split()
    names = [os.path.basename(w) for w in words]
    if any(PYTHON_RE.match(n) for n in names) or any(n.endswith(".py") for n in names):
        return "python"
    if any(n in NODE_PROGRAMS for n in names) or any(
        n.endswith(ext) for n in names for ext in (".js", ".mjs", ".cjs", ".ts", ".mts")
    ):
        return "typescript"
    return None


def cmd_resolve() -> int:
    version, folder, binary = resolve()
    kit = kit_for(os.environ.get("GATE_ADAPTER", ""), os.environ.get("GATE_KIT", ""))
    append_output("version", version)
    append_output("dir", str(folder))
    append_output("binary", str(binary))
    append_output("kit", kit or "none")
    print(f"harness-conformance {version}: {binary}; adapter kit: {kit or 'none'}")
    return 0


def pip_install(folder: Path, requirement: str) -> None:
    """`pip install --target folder requirement`, from GATE_PACKAGES when it is set."""
    packages = os.environ.get("GATE_PACKAGES", "").strip()
    source = ["--no-index", "--find-links", packages] if packages else []
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-deps",
         "--quiet", *source, "--target", str(folder), requirement],
        check=True,
    )


def installed_typescript_kit(start: Path) -> Path | None:
    """The kit's package.json in a node_modules folder Node would resolve it from, if any."""
    for folder in (start, *start.parents):
        manifest = folder / "node_modules" / "@harness-conformance" / "adapter" / "package.json"
        if manifest.is_file():
            return manifest
    return None


def install_kit(kit: str, version: str, folder: Path) -> None:
    """Installs the adapter kit at `version`: Python's into `folder` (its path is the output
    `kit-pythonpath`, which `run` puts first on PYTHONPATH), TypeScript's into the project's
    node_modules with `npm install --no-save` unless the project has it already."""
    if kit == "python":
        target = folder / "kit-python"
        if (target / "harness_conformance_adapter").is_dir():
            print(f"{PYTHON_KIT} {version} is already installed in {target}")
        else:
            print(f"installing {PYTHON_KIT}=={version} into {target}")
            pip_install(target, f"{PYTHON_KIT}=={version}")
        append_output("kit-pythonpath", str(target))
        return
    found = installed_typescript_kit(Path.cwd())
    if found is not None:
        try:
            have = json.loads(found.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            have = None
        print(f"{TYPESCRIPT_KIT} {have} is installed in {found.parent}")
        if have != version:
            print(f"::warning title=harness-conformance::{command_data(f'the project installs {TYPESCRIPT_KIT} {bounded(have, 40)}; this runner is {version}: pin the kit at the runner version')}")
        return
    packages = os.environ.get("GATE_PACKAGES", "").strip()
    spec = (str(Path(packages).resolve() / f"harness-conformance-adapter-{version}.tgz") if packages
            else f"{TYPESCRIPT_KIT}@{version}")
    print(f"installing {TYPESCRIPT_KIT} {version} into {Path.cwd() / 'node_modules'} (npm install --no-save)")
    offline = ["--offline"] if packages else []
    subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", *offline, spec], check=True)


def cmd_install() -> int:
    version, folder, binary = resolve()
    if binary.exists():
        print(f"harness-conformance {version} is already installed in {folder}")
    else:
        print(f"installing harness-conformance=={version} into {folder}")
        pip_install(folder, f"harness-conformance=={version}")
    if not binary.exists():
        raise GateError(f"pip installed harness-conformance {version}, but {binary} is missing")
    append_output("binary", str(binary))
    kit = kit_for(os.environ.get("GATE_ADAPTER", ""), os.environ.get("GATE_KIT", ""))
    if kit is None:
        print("adapter kit: none (the `kit` input, or nothing in the adapter command names a language)")
    else:
        install_kit(kit, version, folder)
    return 0


# ---------------------------------------------------------------- run


def runner_binary() -> str:
    return os.environ.get("HARNESS_CONFORMANCE") or "harness-conformance"


def has_report_command(binary: str) -> bool:
    """Whether this runner renders saved reports (`report`), so the suite runs only once."""
    try:
        done = subprocess.run([binary, "report", "--help"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def read_report(path: Path) -> tuple[list[dict], dict | None]:
    """The case lines and the summary line of a JSON-lines report; lines that are not JSON
    objects are ignored (the runner writes none)."""
    cases, summary = [], None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if not isinstance(v, dict):
            continue
        if v.get("type") == "case":
            cases.append(v)
        elif v.get("type") == "summary":
            summary = v
    return cases, summary


def is_unexpected(case: dict) -> bool:
    return "reproduce" in case or case.get("verdict") in UNEXPECTED


def failing_requirements(case: dict) -> list[str]:
    """The requirements whose checks failed in this case (each check names its owner), not the
    ones the case lists: a case listing VAL-1 and CAP-1 whose cap check failed fails CAP-1."""
    checks = case.get("checks")
    if not isinstance(checks, list):
        return []
    return sorted({c["requirement"] for c in checks
                   if isinstance(c, dict) and c.get("failure") is not None and isinstance(c.get("requirement"), str)})


def describe(case: dict) -> str:
    """`FAIL validation/x [fails VAL-3; MUST]` (the requirements whose checks failed), or
    `ERROR validation/x [MUST]` when no check failed, bounded."""
    tags = []
    failing = failing_requirements(case)[:8]
    if failing:
        tags.append("fails " + ", ".join(failing))
    if isinstance(case.get("level"), str):
        tags.append(case["level"])
    tag = f" [{'; '.join(tags)}]" if tags else ""
    return bounded(f"{case.get('verdict', '?')} {case.get('id', '?')}", ID_CHARS) + bounded(tag, 200)


def messages_of(case: dict) -> list[str]:
    msgs = case.get("messages")
    if not isinstance(msgs, list):
        return []
    out = [bounded(m, MESSAGE_CHARS) for m in msgs[:MESSAGES_PER_CASE]]
    if len(msgs) > MESSAGES_PER_CASE:
        out.append(f"… and {len(msgs) - MESSAGES_PER_CASE} more messages in the JSON report")
    if case.get("verdict") == "STALE":
        out.append("this case passes now: delete its entry from the baseline")
    if case.get("verdict") == "NEW SKIP":
        out.append("the baseline's run did not skip this case: a capability went missing")
    return out


def print_groups(unexpected: list[dict]) -> None:
    """Every unexpected result with its reproducer, one collapsible log group each."""
    for case in unexpected:
        token = secrets.token_hex(16)
        print(f"::group::{describe(case)}")
        print(f"::stop-commands::{token}")
        for m in messages_of(case):
            print(f"  {m}")
        if "reproduce" in case:
            print(f"  reproduce: {bounded(case['reproduce'], MESSAGE_CHARS)}")
        print(f"::{token}::")
        print("::endgroup::")


def print_handshake(message: str, cases: int) -> None:
    """A failed handshake's whole message, in one log group (inert: it quotes the adapter)."""
    token = secrets.token_hex(16)
    print(f"::group::the handshake failed: none of the {cases} cases ran")
    print(f"::stop-commands::{token}")
    for line in str(message).splitlines()[:200]:
        print(f"  {bounded(line, MESSAGE_CHARS)}")
    print(f"::{token}::")
    print("::endgroup::")


def print_annotations(unexpected: list[dict], reasons: list[str]) -> None:
    """Why the run failed (the runner's reasons: unexpected cases, a failed handshake, a MUST
    requirement no case could test), then the first unexpected results, as error annotations;
    when there are more than GitHub shows, the last annotation says how many more there are and
    where they are."""
    limit = ANNOTATION_LIMIT
    if reasons:
        text = "; ".join(bounded(r, MESSAGE_CHARS) for r in reasons[:MESSAGES_PER_CASE])
        print(f"::error title=harness-conformance: the run failed::{command_data(text)}")
        limit -= 1
    shown = unexpected if len(unexpected) <= limit else unexpected[: limit - 1]
    for case in shown:
        msgs = messages_of(case)
        text = msgs[0] if msgs else "unexpected result"
        if "reproduce" in case:
            text += f"\nreproduce: {bounded(case['reproduce'], MESSAGE_CHARS)}"
        print(f"::error title={command_property(describe(case))}::{command_data(text)}")
    rest = len(unexpected) - len(shown)
    if rest:
        print(
            f"::error title=harness-conformance: {rest} more unexpected results::"
            + command_data(
                f"{rest} more unexpected results are not annotated (GitHub shows "
                f"{ANNOTATION_LIMIT} per step): each is in its own log group, with its "
                "reproducer, and in the uploaded reports."
            )
        )


def run_runner(binary: str, args: list[str], fmt: str, out: Path, log: Path | None) -> int:
    """One run of the suite, writing the `fmt` report to `out`; its stderr (progress and the
    terminal summary) goes to the log, or to `log` for the extra runs."""
    cmd = [binary, "run", *args, "--quiet", "--format", fmt, "-o", str(out)]
    if log is None:
        return subprocess.run(cmd).returncode
    with open(log, "wb") as err:
        return subprocess.run(cmd, stderr=err).returncode


def render(binary: str, saved: Path, fmt: str, out: Path) -> None:
    with open(out, "wb") as f:
        done = subprocess.run([binary, "report", str(saved), "--format", fmt], stdout=f)
    if done.returncode != 0:
        raise GateError(f"`harness-conformance report --format {fmt}` exited {done.returncode}")


def inert(run):
    """Calls `run()` with workflow commands off, so nothing the runner prints (it quotes what
    the harness returned) can act as one."""
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", flush=True)
    try:
        return run()
    finally:
        print(f"::{token}::", flush=True)


def cmd_run() -> int:
    adapter = os.environ.get("GATE_ADAPTER", "").strip()
    if not adapter:
        raise GateError("the `adapter` input is required: the command that starts your adapter")
    baseline = os.environ.get("GATE_BASELINE", "").strip()
    if baseline and not Path(baseline).is_file():
        raise GateError(f"baseline {bounded(baseline, 300)!r} is not a file")
    try:
        extra = shlex.split(os.environ.get("GATE_ARGS", ""))
    except ValueError as e:
        raise GateError(f"the `args` input does not parse as shell words: {e}") from e
    for flag in extra:
        if flag.split("=", 1)[0] in ("--format", "-o", "--output", "--harness", "--baseline"):
            raise GateError(f"the `args` input may not set {flag.split('=', 1)[0]}: the action sets it")
    out = Path(os.environ.get("GATE_REPORT_DIR") or "conformance-report")
    out.mkdir(parents=True, exist_ok=True)
    binary = runner_binary()
    kit_path = os.environ.get("GATE_KIT_PYTHONPATH", "").strip()
    if kit_path:
        # The Python kit the install step put beside the runner, first on the adapter's path.
        rest = os.environ.get("PYTHONPATH", "")
        os.environ["PYTHONPATH"] = kit_path + (os.pathsep + rest if rest else "")

    args = ["--harness", adapter, *(["--baseline", baseline] if baseline else []), *extra]
    json_path, junit_path, md_path = out / "conformance.jsonl", out / "conformance.xml", out / "summary.md"
    for p in (json_path, junit_path, md_path):
        p.unlink(missing_ok=True)
    try:
        status = inert(lambda: run_runner(binary, args, "json", json_path, None))
    except OSError as e:
        raise GateError(f"cannot run {bounded(binary, 300)}: {e}") from e
    append_output("exit-code", str(status))
    append_output("report-dir", str(out))
    if not json_path.exists() or json_path.stat().st_size == 0:
        # The runner refused before running anything (a bad flag, an unreadable baseline): its
        # message is in the log just above.
        print(f"::error title=harness-conformance::{command_data(f'the runner exited {status} without a report; its message is in the log above')}")
        append_output("ok", "false")
        return status or 2

    if has_report_command(binary):
        render(binary, json_path, "junit", junit_path)
        render(binary, json_path, "markdown", md_path)
    else:
        # This runner renders one format per run: run the suite again for JUnit and Markdown.
        # The gate's verdict is the first run's; these only render.
        run_runner(binary, args, "junit", junit_path, out / "junit-run.log")
        run_runner(binary, args, "markdown", md_path, out / "markdown-run.log")
    append_output("json", str(json_path))
    append_output("junit", str(junit_path))
    append_output("markdown", str(md_path))

    cases, summary = read_report(json_path)
    unexpected = [c for c in cases if is_unexpected(c)]
    ok = status == 0 and not unexpected
    append_output("ok", "true" if ok else "false")
    append_output("unexpected", str(len(unexpected)))
    # The runner's own account of why the run failed, as the first annotation.
    reasons = [r for r in (summary or {}).get("failure_reasons") or [] if isinstance(r, str)]
    handshake = (summary or {}).get("handshake_error")
    if isinstance(handshake, str):
        # No case ran: one group with the whole message, and the reason (which quotes its
        # cause) as the one annotation, rather than the same ERROR once per case.
        print_handshake(handshake, len(unexpected))
        print_annotations([], reasons)
    else:
        print_groups(unexpected)
        print_annotations(unexpected, reasons if status != 0 else [])

    markdown = md_path.read_text(encoding="utf-8", errors="replace") if md_path.exists() else ""
    if not markdown:
        totals = (summary or {}).get("totals") or {}
        markdown = f"## harness-conformance\n\n{len(cases)} cases: " + ", ".join(
            f"{bounded(n, 20)} {bounded(v, 20)}" for v, n in totals.items()
        ) + "\n"
    artifact = bounded(os.environ.get("GATE_ARTIFACT", "conformance-report"), 100)
    written = write_summary(markdown, f"`{md_path.name}` in the `{artifact}` artifact")
    print(f"harness-conformance gate: {len(cases)} cases, {len(unexpected)} unexpected, "
          f"exit {status}; reports in {out}/ (step summary: {written} bytes)")
    return status


def main(argv: list[str]) -> int:
    # Our lines and the runner's must reach the log in the order they happen.
    sys.stdout.reconfigure(line_buffering=True)
    commands = {"resolve": cmd_resolve, "install": cmd_install, "run": cmd_run}
    if len(argv) != 2 or argv[1] not in commands:
        print(f"usage: {argv[0]} {{{'|'.join(commands)}}}", file=sys.stderr)
        return 2
    try:
        return commands[argv[1]]()
    except GateError as e:
        print(f"::error title=harness-conformance action::{command_data(str(e))}")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
