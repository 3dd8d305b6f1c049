"""Adapter: Continue's CLI (`@continuedev/cli`, `cn`) behind the conformance protocol, over its wire.

What is tested: `cn -p --auto` (headless print mode, every tool allowed), one process per case,
with a config file (`--config`) whose one model is an `openai` provider model with `apiBase` at
the fake provider — OpenAI Chat Completions, streamed over SSE — and the case's tools served by
conformance/wire/mcp_server.py as the stdio MCP server `cases` (`mcpServers` in the same file).
Continue offers MCP tools to the model under their own names (no prefix); the fake model calls
them by that name, with the case's call ids as `tool_calls[].id`. The follow-up request's `tool`
messages are what the model sees.

Configuration (a fresh HOME and CONTINUE_GLOBAL_DIR per case): telemetry and metrics off
(CONTINUE_CLI_ENABLE_TELEMETRY=0, CONTINUE_METRICS_ENABLED=0), a dummy API key. The process runs
in a network namespace with only loopback (run).

The error flag: Chat Completions has none, and Continue shows an MCP result with `isError: true`
exactly like a success (its content blocks as JSON text): the adapter reports `is_error: false`,
what the model was told.
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


class ContinueCli(agent.Agent):
    name = "continue-cli"
    title = "continue-cli (cn -p, MCP tools, Chat Completions)"
    homepage = "https://github.com/continuedev/continue"
    adapter_dir = HERE
    package = "@continuedev/cli"
    dialect = dialects.CHAT
    cap = None  # as observed (docs/harnesses.md): no cap on an MCP result
    model = MODEL
    deadline = None

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".continue")
        config = {
            "name": "conformance", "version": "1.0.0", "schema": "v1",
            "models": [{"name": "fake", "provider": "openai", "model": MODEL, "apiBase": base_url + "/v1",
                        "apiKey": "sk-fake-offline", "roles": ["chat", "edit", "apply"], "capabilities": ["tool_use"]}],
            "mcpServers": [{"name": "cases", "command": mcp[0], "args": mcp[1:]}],
        }
        path = os.path.join(work, "config.yaml")
        with open(path, "w") as f:
            json.dump(config, f, indent=1)  # JSON is YAML
        env = agent.base_env(home)
        env.update(self.node_env())
        env.update({"CONTINUE_GLOBAL_DIR": os.path.join(home, ".continue"), "CONTINUE_CLI_ENABLE_TELEMETRY": "0",
                    "CONTINUE_METRICS_ENABLED": "0"})
        argv = [self.node(), self.installed("dist", "cn.js"), "-p", "--auto", "--format", "json", "--config", path, agent.PROMPT]
        return argv, env, work


AGENT = ContinueCli()


if __name__ == "__main__":
    agent.main(AGENT)
