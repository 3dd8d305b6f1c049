"""The MCP tool server as an agent sees it: a real stdio process speaking JSON-RPC lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mcp_server.py")
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}
CASE = {
    "id": "wire/mcp-server-test",
    "config": {"cap": {"limit": 100, "unit": "bytes", "strategy": "head_tail"}},
    "tools": [
        {"name": "echo", "description": "Echo.", "input_schema": SCHEMA, "behavior": {"return": {"echo_args": True}}},
        {"name": "mutate", "description": "", "input_schema": {"type": "object"},
         "behavior": {"mutate_args": {"set": {"/n": 99}}, "then": {"return": {"echo_args": True}}}},
        {"name": "refuse", "description": "", "input_schema": {"type": "object"},
         "behavior": {"raise": {"kind": "domain", "message": "Not today."}}},
        {"name": "down", "description": "", "input_schema": {"type": "object"},
         "behavior": {"raise": {"kind": "transport", "message": "backend unreachable"}}},
        {"name": "slow", "description": "", "input_schema": {"type": "object"},
         "behavior": {"sleep_ms": 400, "then": {"return": {"text": "slow done"}}}},
        {"name": "big", "description": "", "input_schema": {"type": "object"},
         "behavior": {"return": {"generate": {"repeat": "é", "size": 10}}}},
        {"name": "data", "description": "", "input_schema": {"type": "object"},
         "behavior": {"return": {"json": {"ok": True, "list": [1, "two"]}}}},
    ],
    "calls": [],
}


class ServerProcess(unittest.TestCase):
    """The server as a process for one test: `case` served, `extra_args` on its command line."""

    case = CASE
    extra_args: list[str] = []

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        case_path = os.path.join(self.dir.name, "case.json")
        self.log = os.path.join(self.dir.name, "invocations.jsonl")
        with open(case_path, "w") as f:
            json.dump(self.case, f)
        self.proc = subprocess.Popen([sys.executable, SERVER, case_path, self.log, *self.extra_args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0

    def tearDown(self):
        self.proc.stdin.close()
        self.proc.wait(5)
        self.proc.stdout.close()
        self.dir.cleanup()

    def send(self, method, params=None, notify=False):
        message = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return None if notify else self.next_id

    def read(self):
        return json.loads(self.proc.stdout.readline())

    def request(self, method, params=None):
        mid = self.send(method, params)
        reply = self.read()
        self.assertEqual(reply["id"], mid)
        return reply

    def invocations(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f if line.strip()]


class McpServer(ServerProcess):

    def test_handshake_and_the_schemas_exactly_as_written(self):
        init = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}})
        self.assertEqual(init["result"]["protocolVersion"], "2025-06-18")
        self.assertIn("tools", init["result"]["capabilities"])
        self.send("notifications/initialized", notify=True)
        self.assertEqual(self.request("initialize", {"protocolVersion": "1999-01-01"})["result"]["protocolVersion"], "2025-06-18")
        tools = self.request("tools/list")["result"]["tools"]
        self.assertEqual([t["name"] for t in tools], [t["name"] for t in CASE["tools"]])
        self.assertEqual(tools[0]["inputSchema"], SCHEMA)
        self.assertEqual(tools[0]["description"], "Echo.")
        self.assertEqual(self.request("ping")["result"], {})
        self.assertEqual(self.request("sampling/createMessage")["error"]["code"], -32601)

    def test_invalid_arguments_run_the_handler_unchanged_and_are_recorded(self):
        reply = self.request("tools/call", {"name": "echo", "arguments": {"n": "3", "extra": [1]}})
        self.assertEqual(reply["result"]["isError"], False)
        self.assertEqual(json.loads(reply["result"]["content"][0]["text"]), {"n": "3", "extra": [1]})
        self.request("tools/call", {"name": "echo"})  # no arguments at all
        self.assertEqual(self.invocations(), [{"tool": "echo", "args": {"n": "3", "extra": [1]}}, {"tool": "echo", "args": None}])

    def test_the_record_is_taken_before_the_handler_changes_its_arguments(self):
        reply = self.request("tools/call", {"name": "mutate", "arguments": {"n": 1}})
        self.assertEqual(json.loads(reply["result"]["content"][0]["text"]), {"n": 99})
        self.assertEqual(self.invocations(), [{"tool": "mutate", "args": {"n": 1}}])

    def test_outcomes(self):
        refused = self.request("tools/call", {"name": "refuse", "arguments": {}})["result"]
        self.assertEqual((refused["isError"], refused["content"][0]["text"]), (True, "Not today."))
        down = self.request("tools/call", {"name": "down", "arguments": {}})["result"]
        self.assertEqual((down["isError"], down["content"][0]["text"]), (True, "backend unreachable"))
        big = self.request("tools/call", {"name": "big", "arguments": {}})["result"]
        self.assertEqual(big["content"][0]["text"], "é" * 5)  # 10 bytes: the case's cap unit
        data = self.request("tools/call", {"name": "data", "arguments": {}})["result"]
        self.assertEqual(json.loads(data["content"][0]["text"]), {"ok": True, "list": [1, "two"]})
        unknown = self.request("tools/call", {"name": "nope", "arguments": {}})
        self.assertEqual(unknown["error"]["code"], -32602)
        self.assertEqual(len(self.invocations()), 4)  # the unknown tool ran nothing

    def test_a_sleeping_handler_does_not_hold_up_the_others(self):
        start = time.monotonic()
        slow = self.send("tools/call", {"name": "slow", "arguments": {}})
        fast = self.send("tools/call", {"name": "echo", "arguments": {"n": 1}})
        first, second = self.read(), self.read()
        self.assertEqual((first["id"], second["id"]), (fast, slow))
        self.assertGreaterEqual(time.monotonic() - start, 0.4)
        self.assertEqual(second["result"]["content"][0]["text"], "slow done")


NO_CAP_CASE = {"id": "wire/mcp-server-units", "tools": [
    {"name": "big", "description": "", "input_schema": {"type": "object"},
     "behavior": {"return": {"generate": {"repeat": "é", "size": 10}}}},
    {"name": "broken", "description": "", "input_schema": {"type": "object"},
     "behavior": {"return": {"no_such_output": 1}}},
], "calls": []}


class UnitFromTheAgent(ServerProcess):
    """A case without a cap unit: sizes count in the agent's declared unit, given on the command line."""

    case = NO_CAP_CASE
    extra_args = ["bytes"]

    def test_sizes_count_in_the_agents_unit(self):
        big = self.request("tools/call", {"name": "big", "arguments": {}})["result"]
        self.assertEqual(big["content"][0]["text"], "é" * 5)

    def test_a_behaviour_the_kit_cannot_perform_is_the_adapters_failure(self):
        import behaviours  # on the path: the server's folder (see below)
        reply = self.request("tools/call", {"name": "broken", "arguments": {}})
        self.assertEqual(reply["error"]["code"], -32603)  # the agent is answered, not left waiting
        self.assertIn(behaviours.ADAPTER_FAILURE, self.invocations()[-1])
        with self.assertRaises(behaviours.BehaviourFailed):
            behaviours.read_log(self.log)


class UnitDefault(ServerProcess):
    """No cap unit anywhere: chars."""

    case = NO_CAP_CASE

    def test_sizes_count_in_chars(self):
        big = self.request("tools/call", {"name": "big", "arguments": {}})["result"]
        self.assertEqual(big["content"][0]["text"], "é" * 10)


sys.path.insert(0, os.path.dirname(SERVER))

if __name__ == "__main__":
    unittest.main()
