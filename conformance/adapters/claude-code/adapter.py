"""Adapter: Claude Code (`@anthropic-ai/claude-code`) behind the conformance protocol, over its wire.

What is tested: `claude -p` (print mode, the CLI's non-interactive form), one process per case,
with `ANTHROPIC_BASE_URL` pointed at the fake provider (Anthropic Messages API, streamed over SSE,
as Claude Code speaks it) and the case's tools served by conformance/wire/mcp_server.py as the
stdio MCP server `cases` (`--mcp-config`, `--strict-mcp-config`). Claude Code offers MCP tools to
the model as `mcp__cases__<tool>`; the fake model calls them by that name, with the case's call
ids as `tool_use` ids. The follow-up request's `tool_result` blocks (with their `is_error` flag)
are what the model sees.

Configuration: `--bare` (the scripted-use mode: no hooks, plugins, background prefetches or
keychain; the API key is read from ANTHROPIC_API_KEY), `--allowedTools mcp__cases` so the
server's tools run without a person, session persistence off, a fresh CLAUDE_CONFIG_DIR per case,
nonessential traffic, telemetry, error reporting and the auto-updater off, and a dummy key. The
MCP tool timeout is MCP_TOOL_TIMEOUT (ms); the output limit is Claude Code's own default
(MAX_MCP_OUTPUT_TOKENS unset). The process runs in a network namespace with only loopback (run).
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "wire"))

import agent  # noqa: E402
import dialects  # noqa: E402

MODEL = "claude-sonnet-4-5"


class ClaudeCode(agent.Agent):
    name = "claude-code"
    title = "claude-code (claude -p, MCP tools, Messages API)"
    homepage = "https://github.com/anthropics/claude-code"
    adapter_dir = HERE
    package = "@anthropic-ai/claude-code"
    dialect = dialects.ANTHROPIC
    # As observed (docs/harnesses.md): an MCP result over 50,000 chars is saved to a file and
    # replaced by a note with the file's path and a 2 KB preview of the start of the result's
    # JSON; far larger ones get an "exceeds maximum allowed tokens" message instead. Neither
    # threshold is settable in chars or bytes: not configurable.
    cap = agent.Cap("chars", 50000, strategies=("head_only",), configurable=False)
    model = MODEL

    prefix = "mcp__cases__"

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".claude")
        config_dir = os.path.join(home, ".claude")
        mcp_config = os.path.join(work, "mcp.json")
        with open(mcp_config, "w") as f:
            json.dump({"mcpServers": {"cases": {"type": "stdio", "command": mcp[0], "args": mcp[1:]}}}, f)
        env = agent.base_env(home)
        env.update({
            "CLAUDE_CONFIG_DIR": config_dir,
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sk-ant-fake-offline",
            "ANTHROPIC_MODEL": MODEL,
            "ANTHROPIC_SMALL_FAST_MODEL": MODEL,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
            "CLAUDE_CODE_MAX_RETRIES": "0",
            "MCP_TIMEOUT": "30000",
        })
        deadline = agent.deadline_ms(case)
        if deadline is not None:
            env["MCP_TOOL_TIMEOUT"] = str(deadline)
        argv = [self.installed("bin", "claude.exe"), "-p", "--bare", "--output-format", "json", "--no-session-persistence",
                "--mcp-config", mcp_config, "--strict-mcp-config", "--allowedTools", "mcp__cases",
                "--model", MODEL, agent.PROMPT]
        return argv, env, work


AGENT = ClaudeCode()


if __name__ == "__main__":
    agent.main(AGENT)
