"""Adapter: GitHub Copilot CLI (`@github/copilot`) behind the conformance protocol, over its wire.

What is tested: `copilot -p` (non-interactive mode) in its bring-your-own-key mode, one process
per case: COPILOT_PROVIDER_BASE_URL points at the fake provider (provider type `openai`, wire
`completions`: OpenAI Chat Completions, streamed over SSE) and COPILOT_OFFLINE=true, so no GitHub
sign-in, telemetry, web tool, GitHub MCP server or update check is involved. The case's tools are
served by conformance/wire/mcp_server.py as the stdio MCP server `cases`
(`--additional-mcp-config`); Copilot offers them as `cases-<tool>`, the fake model calls them by
that name, with the case's call ids as `tool_calls[].id`, and the follow-up request's `tool`
messages are what the model sees.

Configuration (a fresh HOME and COPILOT_HOME per case): `--allow-all-tools` (required in
non-interactive mode), built-in MCP servers off, client telemetry off, no auto-update; a dummy
API key. The process runs in a network namespace with only loopback (run).

The error flag: Chat Completions has none. Copilot shows an MCP result with `isError: true` as
`MCP server 'cases': <message>`, and its own refusals (unknown tool, arguments that are not
JSON) as plain sentences: no structural mark, so the adapter reports `is_error: false`, as for
Codex and opencode (a model must infer failure from the wording).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "wire"))

import agent  # noqa: E402
import dialects  # noqa: E402

MODEL = "gpt-4.1"  # a model id Copilot knows, for its token limits; sent to the fake provider as is


class Copilot(agent.Agent):
    name = "copilot"
    title = "copilot (copilot -p, BYOK provider, MCP tools, Chat Completions)"
    homepage = "https://github.com/github/copilot-cli"
    adapter_dir = HERE
    package = "@github/copilot"
    dialect = dialects.CHAT
    # As observed (docs/harnesses.md): a result over 20,480 UTF-8 bytes (20 KiB; 10,000 `é` pass,
    # 10,300 do not) is saved to a file, and the model gets a note with its size and path and
    # the first 500 chars: a spill. No setting for it: not configurable.
    cap = agent.Cap("bytes", 20480, strategies=("spill",), configurable=False)
    model = MODEL
    prefix = "cases-"
    deadline = None

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".copilot")
        mcp_config = os.path.join(work, "mcp.json")
        with open(mcp_config, "w") as f:
            json.dump({"mcpServers": {"cases": {"type": "local", "command": mcp[0], "args": mcp[1:], "tools": ["*"]}}}, f)
        env = agent.base_env(home)
        env.update(self.node_env())
        env.update({
            "COPILOT_HOME": os.path.join(home, ".copilot"),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": base_url + "/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "sk-fake-offline",
            "COPILOT_MODEL": MODEL,
            "COPILOT_AUTO_UPDATE": "false",
        })
        argv = [self.node(), self.installed("npm-loader.js"), "-p", agent.PROMPT, "--allow-all-tools", "--no-auto-update",
                "--disable-builtin-mcps", "--disable-client-telemetry", "--output-format", "json",
                "--additional-mcp-config", "@" + mcp_config]
        return argv, env, work


AGENT = Copilot()


if __name__ == "__main__":
    agent.main(AGENT)
