"""A stdio MCP tool server built from one case's tools: a transparent third-party server.

Why this module exists: coding agents take tools from MCP servers. To put a case in front of an
agent, this server offers the case's tools and runs their scripted behaviours, recording every
invocation with a deep copy of the arguments it received, taken on entry.

It is deliberately a *transparent* stand-in for "some third-party MCP server": `tools/list` gives
each tool's `inputSchema` exactly as the case wrote it, and `tools/call` runs the scripted
behaviour on whatever arguments arrive, valid or not. It validates nothing, coerces nothing and
caps nothing. So a column judges the agent: if bad arguments reach a handler, the agent sent
them; if a 2 MB output reaches the model, the agent passed it on. (A server that validated would
hide every agent's validation behind its own.)

Outcomes on the wire (MCP has no error codes beyond JSON-RPC's):
- return → a result with one text block: the text, or the JSON value's text (`json`, `echo_args`);
- raise domain / transport → a result with `isError: true` and the message as its text
  (MCP's tool-execution-error form, what SDK servers produce when a handler raises);
- an unknown tool name → JSON-RPC error -32602, as the SDKs answer;
- internal errors and non-finite floats are not served here: a server decides how to turn
  them into text, so the agent cannot be judged on them (adapters skip those cases).

Usage (the agent starts it): mcp_server.py CASE.json INVOCATIONS.jsonl [UNIT]
(UNIT: what generated sizes count when the case sets no cap unit, the agent's declared cap unit.)
Standard library only; one thread per tools/call so a sleeping handler does not block the rest.
"""

from __future__ import annotations

import copy
import json
import sys
import threading

import behaviours

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
SERVER_NAME = "cases"


class Server:
    def __init__(self, case: dict, log_path: str, unit: str | None = None, out=sys.stdout):
        self.case = case
        # Generated sizes are in the case's cap unit, else the agent's declared one (agent.py
        # passes it), else chars (PROTOCOL.md, "gen").
        self.unit = ((case.get("config") or {}).get("cap") or {}).get("unit") or unit or "chars"
        self.tools = {tool["name"]: tool for tool in case["tools"]}
        self.log_path = log_path
        self.out = out
        self.write_lock = threading.Lock()
        self.log_lock = threading.Lock()
        open(log_path, "a").close()

    def send(self, message: dict) -> None:
        line = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        with self.write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def record(self, name: str, args) -> None:
        self._log({"tool": name, "args": args})

    def fail(self, message: str) -> None:
        """A behaviour could not be performed: agent.py answers the case as an adapter error."""
        self._log({behaviours.ADAPTER_FAILURE: message[:2000]})

    def _log(self, entry: dict) -> None:
        line = json.dumps(entry, ensure_ascii=True, allow_nan=False)
        with self.log_lock, open(self.log_path, "a") as log:
            log.write(line + "\n")

    def handle(self, message: dict) -> None:
        method, mid = message.get("method"), message.get("id")
        if "id" not in message:
            return  # a notification (initialized, cancelled, ...): nothing to answer
        if method == "initialize":
            asked = (message.get("params") or {}).get("protocolVersion")
            self.send({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": asked if asked in VERSIONS else VERSIONS[2],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": SERVER_NAME, "version": "1.0.0"}}})
        elif method == "ping":
            self.send({"jsonrpc": "2.0", "id": mid, "result": {}})
        elif method == "tools/list":
            listing = [{"name": t["name"], "description": t.get("description", ""), "inputSchema": t["input_schema"]}
                       for t in self.case["tools"]]
            self.send({"jsonrpc": "2.0", "id": mid, "result": {"tools": listing}})
        elif method == "tools/call":
            threading.Thread(target=self.call, args=(mid, message.get("params") or {}), daemon=True).start()
        elif method in ("resources/list", "prompts/list", "resources/templates/list"):
            key = {"resources/list": "resources", "prompts/list": "prompts", "resources/templates/list": "resourceTemplates"}[method]
            self.send({"jsonrpc": "2.0", "id": mid, "result": {key: []}})
        else:
            self.send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"Method not found: {method}"[:200]}})

    def call(self, mid, params: dict) -> None:
        name = params.get("name")
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            self.send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})
            return
        args = params.get("arguments")
        self.record(name, copy.deepcopy(args))
        try:
            value = behaviours.perform(tool["behavior"], copy.deepcopy(args), self.unit)
        except behaviours.Raised as raised:
            self.send({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": raised.message}], "isError": True}})
            return
        except behaviours.KitError as failed:  # the adapter's failure: logged, and the agent not left waiting
            self.fail(str(failed))
            self.send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32603, "message": "the case's behaviour failed"}})
            return
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, allow_nan=True)
        self.send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": text}], "isError": False}})

    def serve(self, stdin) -> None:
        for raw in stdin:
            if not raw.strip():
                continue
            try:
                message = json.loads(raw)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
                continue
            for item in message if isinstance(message, list) else [message]:
                if isinstance(item, dict) and "method" in item:
                    self.handle(item)


def main() -> None:
    case_path, log_path = sys.argv[1:3]
    unit = sys.argv[3] if len(sys.argv) > 3 else None
    with open(case_path, encoding="utf-8") as f:
        case = json.load(f)
    Server(case, log_path, unit).serve(sys.stdin)


if __name__ == "__main__":
    main()
