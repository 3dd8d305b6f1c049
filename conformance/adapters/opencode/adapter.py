"""Adapter: opencode (`opencode-ai`) behind the conformance protocol, over its wire.

What is tested: `opencode run` (the non-interactive form), one process per case, with a custom
provider `fake` built on the AI SDK's OpenAI-compatible provider (`@ai-sdk/openai-compatible`,
which opencode bundles) pointed at the fake provider — OpenAI Chat Completions, streamed over
SSE — and the case's tools served by conformance/wire/mcp_server.py as the local MCP server
`cases`. opencode offers MCP tools as `cases_<tool>`; the fake model calls them by that name,
with the case's call ids as `tool_calls[].id`. The follow-up request's `tool` messages are
what the model sees. Chat Completions has no error flag; see `is_error` below.

Configuration (OPENCODE_CONFIG, a fresh HOME/XDG tree per case): every permission `allow`, no
sharing, no auto-update, no models.dev fetch, no default plugins, no LSP downloads, no Claude
Code or external skills, `--pure`; a dummy API key; the MCP server's `timeout` left at its
default (it bounds the tool listing too, so no deadline is declared). The process runs in a network namespace with only loopback (run).
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


class Opencode(agent.Agent):
    name = "opencode"
    title = "opencode (opencode run, MCP tools, Chat Completions)"
    homepage = "https://github.com/sst/opencode"
    adapter_dir = HERE
    package = "opencode-ai"
    dialect = dialects.CHAT
    # As observed (docs/harnesses.md): output over 51,200 UTF-8 bytes (or 2,000 lines) is
    # saved to a file and cut to the whole lines that fit from its head, with a
    # "...N bytes truncated..." / "...N lines truncated..." note and the file's path. Not
    # settable: not configurable.
    cap = agent.Cap("bytes", 51200, strategies=("head_only",), configurable=False)
    model = MODEL

    prefix = "cases_"

    # The MCP server's `timeout` bounds every request to it, `tools/list` included (opencode 1.18
    # passes it to listTools too): a case's 250 ms deadline keeps the server's tools from being
    # offered on a loaded machine. So no deadline is declared, and deadline cases SKIP (as for
    # Gemini CLI); the server gets opencode's default timeout.
    deadline = None

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work)
        server = {"type": "local", "command": mcp, "enabled": True}
        config = {
            "$schema": "https://opencode.ai/config.json",
            "model": f"fake/{MODEL}",
            "small_model": f"fake/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"*": "allow"},
            "provider": {"fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "fake",
                "options": {"baseURL": base_url + "/v1", "apiKey": "fake-offline-key"},
                "models": {MODEL: {"name": MODEL, "tool_call": True}},
            }},
            "mcp": {"cases": server},
        }
        config_path = os.path.join(work, "opencode.json")
        with open(config_path, "w") as f:
            json.dump(config, f, indent=1)
        env = agent.base_env(home)
        env.update({
            "OPENCODE_CONFIG": config_path,
            "XDG_CONFIG_HOME": os.path.join(home, ".config"),
            "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
            "XDG_CACHE_HOME": os.path.join(home, ".cache"),
            "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
            "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
            "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
        })
        argv = [self.installed("bin", "opencode.exe"), "run", "--pure", "--format", "json", "--model", f"fake/{MODEL}", agent.PROMPT]
        return argv, env, work


AGENT = Opencode()


if __name__ == "__main__":
    agent.main(AGENT)
