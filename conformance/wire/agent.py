"""Runs one case through a coding agent over its wire: the adapter side shared by every agent.

Why this module exists: every coding-agent adapter does the same thing around its agent — decide
whether the case can be put on the agent's wire at all, write the case for the MCP tool server,
start the fake provider, start the agent once (one conversation per case) with both configured,
wait (bounded) for the tool results to come back over the wire, stop the agent, and turn what was
captured into the protocol's reply. An agent adapter only says how to configure and start its
agent, how the agent names MCP tools, and how its wire carries the error flag (the `Agent` class).

Nothing here judges: results are reported as the captured request lists them, with their text as
sent; calls that got no result are simply absent (the runner fails "one result per call").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import behaviours  # noqa: E402
import dialects  # noqa: E402
import provider  # noqa: E402

import hcproto  # noqa: E402

PROMPT = "Call the tools."
TAIL = 3000  # characters of the agent's output kept for messages

# Every keyword the protocol's vocabulary names (PROTOCOL.md, "The vocabulary is closed"): the
# MCP server hands the case's schema to the agent verbatim, so every keyword reaches the harness
# exactly as written; what the agent does with it is judged.
KEYWORDS = [
    "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "definitions", "allOf", "anyOf",
    "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies", "prefixItems", "items",
    "additionalItems", "contains", "properties", "patternProperties", "additionalProperties",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired", "format", "contentEncoding",
    "contentMediaType", "contentSchema",
    "$schema", "$id", "$comment", "$vocabulary", "title", "description", "default", "examples",
    "deprecated", "readOnly", "writeOnly",
]


class Agent:
    """What an agent adapter provides. Subclasses set the attributes and override `launch`."""

    name = "agent"
    title = "agent"  # the implementation name in the handshake
    homepage = ""
    package_json = ""  # the pinned npm package's package.json (its version is the handshake's)
    dialect = dialects.ANTHROPIC
    stream = True  # whether the agent streams its model requests (decides what the wire carries)
    model = "fake-model"
    prefix = ""  # the agent offers MCP tool t of server `cases` as prefix + t
    cap: dict | None = None  # the cap as observed (docs/harnesses.md)
    call_forms = ["structured", "arguments_text"]  # what the agent's wire carries (README.md)

    def expose(self, tool: str) -> dict:
        """How the model names MCP tool `tool` of server `cases` in a call: {"name", "namespace"?}."""
        return {"name": self.prefix + tool}

    def offered(self, tool: str) -> str:
        """The name dialects.tool_names lists for that tool in the agent's request."""
        return self.prefix + tool

    def capabilities(self) -> dict:
        """What every wire agent declares: its cap, MCP tool timeouts as deadlines, every schema
        keyword (the schema reaches the agent verbatim), its wire's call forms, whole batches;
        no codes, retry hints or history (no agent shows them to the model)."""
        return {"cap": self.cap, "deadline": {"configurable": True}, "keywords": KEYWORDS,
                "call_forms": self.call_forms, "parallel": True, "history": False}

    def launch(self, work: str, base_url: str, mcp: list[str], case: dict) -> tuple[list[str], dict, str]:
        """(argv, environment, cwd) that run the agent once, non-interactively, on PROMPT."""
        raise NotImplementedError

    def is_error(self, result: dict) -> bool:
        """The error flag of a parsed result whose dialect has none (how the agent carries it)."""
        return bool(result["is_error"])

    def skip_reason(self, case: dict) -> str | None:
        """A case this agent cannot be given faithfully, beyond what the wire itself rules out."""
        return None


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


def run_case(agent: Agent, case: dict, cut_off: bool = False) -> dict:
    """The protocol reply for one case (raises hcproto.Skip when it cannot be put on the wire).

    `cut_off` serves the tool turn as stopped for max tokens inside the last call's arguments
    (the cut-off scenario, cutoff.py); the reply then also carries the conversation's log.
    """
    reason = wire_unsupported(case, agent)
    if reason:
        raise hcproto.Skip(reason)
    if cut_off:
        try:
            dialects.check(agent.dialect, wire_calls(case, agent), agent.stream, cut_off=True)
        except dialects.Unexpressible as exc:
            raise hcproto.Skip(str(exc)) from None
    work = tempfile.mkdtemp(prefix=f"wire-{agent.name}-")
    try:
        return _run_in(agent, case, work, cut_off)
    finally:
        if not os.environ.get("WIRE_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"wire: kept {work}", file=sys.stderr)


def _run_in(agent: Agent, case: dict, work: str, cut_off: bool) -> dict:
    case_path = os.path.join(work, "case.json")
    log_path = os.path.join(work, "invocations.jsonl")
    with open(case_path, "w", encoding="utf-8") as f:
        json.dump(case, f, ensure_ascii=True)
    open(log_path, "w").close()
    mcp = [sys.executable, os.path.join(HERE, "mcp_server.py"), case_path, log_path]
    conversation = provider.Conversation(
        wire_calls(case, agent), [agent.offered(t["name"]) for t in case["tools"]], model=agent.model,
        cut_off=cut_off)
    out_path, err_path = os.path.join(work, "agent.out"), os.path.join(work, "agent.err")
    with provider.Provider(conversation) as fake:
        argv, env, cwd = agent.launch(work, fake.base_url, mcp, case)
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        try:
            finished = fake.wait(timeout_for(case), alive=lambda: process.poll() is None)
            if finished:
                # The agent got its final turn; give it a moment to finish its bookkeeping and exit.
                end = time.monotonic() + 3
                while process.poll() is None and time.monotonic() < end:
                    time.sleep(0.05)
        finally:
            _stop(process)
    if os.environ.get("WIRE_KEEP"):
        with open(os.path.join(work, "requests.json"), "w") as f:
            json.dump(conversation.log, f, indent=1, ensure_ascii=False)
    if conversation.problem:
        raise hcproto.Skip(conversation.problem)
    if conversation.state == "emit":
        detail = " ".join((_tail(err_path) + " " + _tail(out_path)).split())[-1500:]
        return {"error": f"{agent.name} never asked the fake provider for the conversation turn "
                         f"(exit {process.returncode}; {len(conversation.log)} other requests): {detail}"}
    if conversation.state == "wait":
        # The agent ended (or hung) after the tool turn without sending the results: the model
        # got nothing for the turn. Its own last error line says why, when it printed one.
        said = _last_error_line(_tail(err_path) + "\n" + _tail(out_path))
        print(f"wire: {agent.name} output tail: {' '.join(_tail(err_path).split())[-600:]}", file=sys.stderr)
        hcproto.log_harness_raise(None, RuntimeError(
            f"{agent.name} ended without answering the tool turn (exit {process.returncode})" + (f": {said}" if said else "")))
    results = []
    for parsed in conversation.results():
        results.append({
            "tool_use_id": parsed["tool_use_id"],
            "is_error": agent.is_error(parsed),
            "content": parsed["content"],
            "native": parsed["native"],
        })
    invocations = []
    with open(log_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                invocations.append(json.loads(line))
    reply = {"results": results, "invocations": invocations}
    if cut_off:
        reply["requests"] = conversation.log
    return reply


def main(agent: Agent) -> None:
    """Serves the adapter protocol on stdin/stdout for `agent` (an adapter's entry point)."""
    with open(agent.package_json, encoding="utf-8") as f:
        version = json.load(f)["version"]
    hello = {"implementation": {"name": agent.title, "language": "wire", "version": version, "homepage": agent.homepage},
             "capabilities": agent.capabilities()}
    hcproto.serve(hello, lambda case: run_case(agent, case))
