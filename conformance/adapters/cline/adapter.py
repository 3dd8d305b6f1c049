"""Adapter: Cline's CLI (`cline`) behind the conformance protocol, over its wire.

What is tested: `cline --json "<prompt>"` (the CLI's one-shot act mode with tool auto-approval),
one process per case, with its `openai-compatible` provider pointed at the fake provider — OpenAI
Chat Completions, streamed over SSE — and the case's tools served by conformance/wire/mcp_server.py
as the stdio MCP server `cases`. Cline offers MCP tools as `cases__<tool>`; the fake model calls
them by that name, with the case's call ids as `tool_calls[].id`. The follow-up request's `tool`
messages are what the model sees.

Configuration (a fresh HOME per case): ~/.cline/data/settings/providers.json and
cline_mcp_settings.json exactly as `cline auth -p openai -k KEY -m MODEL -b URL` and
`cline mcp add cases --yes -- COMMAND` write them (written directly: running those two commands
per case would triple the start-up cost); auto-approval on (`--auto-approve true`), auto-update
off; a dummy API key. Cline's `openai-compatible` client (Bun's fetch) does not honour NO_PROXY
for loopback, so the dead-proxy variables are left out for it: the process runs in a network
namespace with only loopback (run), where nothing can leave the machine anyway. Cline starts a
detached "hub" daemon for the session; agent.py ends it with the case (it carries the case's
HOME), and each adapter process has its own network namespace, so no case reaches another's hub.

The error flag: Chat Completions has none. Cline shows the model the MCP result itself as JSON
text — `{"content": [...], "isError": true}` — and a call it refused before running as
`{"error": "..."}`; `is_error` reads those marks (what the model can read).
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


class Cline(agent.Agent):
    name = "cline"
    title = "cline (cline --json, MCP tools, Chat Completions)"
    homepage = "https://github.com/cline/cline"
    adapter_dir = HERE
    package = "cline"
    dialect = dialects.CHAT
    # As observed (docs/harnesses.md): what the model is shown — the MCP result's JSON text — is
    # held to 8,000 chars (5,000 `é` pass whole: chars, not bytes) by keeping its head and tail
    # around "...[truncated N chars]...". No setting for it: not configurable.
    cap = agent.Cap("chars", 8000, strategies=("head_tail",), configurable=False)
    model = MODEL
    prefix = "cases__"
    deadline = None

    def is_error(self, result):
        try:
            shown = json.loads(result["content"])
        except ValueError:
            return False
        return isinstance(shown, dict) and (shown.get("isError") is True or set(shown) == {"error"})

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".cline", "data", "settings")
        settings = os.path.join(home, ".cline", "data", "settings")
        with open(os.path.join(settings, "cline_mcp_settings.json"), "w") as f:
            json.dump({"mcpServers": {"cases": {"transport": {"type": "stdio", "command": mcp[0], "args": mcp[1:]}}}}, f, indent=2)
        provider = {"provider": "openai-compatible", "apiKey": "sk-fake-offline", "model": MODEL, "baseUrl": base_url + "/v1"}
        with open(os.path.join(settings, "providers.json"), "w") as f:
            json.dump({"version": 1, "lastUsedProvider": "openai-compatible", "modes": {}, "providers": {
                "openai-compatible": {"settings": provider, "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}},
                f, indent=2)
        env = agent.base_env(home)
        for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            del env[key]
        env["CLINE_NO_AUTO_UPDATE"] = "1"
        argv = ["node", self.installed("bin", "cline"), "--json", "--auto-approve", "true", "-c", work, agent.PROMPT]
        return argv, env, work


AGENT = Cline()


if __name__ == "__main__":
    agent.main(AGENT)
