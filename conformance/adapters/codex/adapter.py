"""Adapter: the Codex CLI (`@openai/codex`) behind the conformance protocol, over its wire.

What is tested: `codex exec`, the CLI's non-interactive mode, one process per case, with a custom
model provider pointed at the fake provider (OpenAI Responses API, streamed over SSE, as Codex
speaks it) and the case's tools served by conformance/wire/mcp_server.py as the stdio MCP server
`cases`. Codex offers an MCP server's tools as one Responses `namespace` tool, `mcp__cases`; the fake
model calls them as `{"namespace": "mcp__cases", "name": <tool>}`, with the case's call ids as
`call_id`. The follow-up request's `function_call_output`
items are the results the model sees.

Configuration (written to a fresh CODEX_HOME per case): approvals `never`, sandbox
`danger-full-access` (nothing runs but the MCP server), MCP tools auto-approved
(`default_tools_approval_mode = "approve"`), update checks, analytics, feedback and OpenTelemetry
off, no request retries; a dummy API key. The process runs in a network namespace of its own
with only loopback (see run), so nothing can leave the machine.

The error flag: the Responses wire has none. Codex carries an MCP result's `isError` by no
structural mark the model sees; see `is_error` below for what is read and why.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "wire"))

import agent  # noqa: E402
import dialects  # noqa: E402


def toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string literal is a valid TOML basic string


class Codex(agent.Agent):
    name = "codex"
    title = "codex (codex exec, MCP tools, Responses API)"
    homepage = "https://github.com/openai/codex"
    adapter_dir = HERE
    package = "@openai/codex"
    dialect = dialects.RESPONSES
    # As observed (docs/harnesses.md): content over 12,000 UTF-8 bytes, Codex's "Wall time"
    # header included, is cut to head + tail with a "…N tokens truncated…" note. The
    # `tool_output_token_limit` setting counts estimated tokens, not bytes or chars, so a
    # case's limit cannot be set exactly: not configurable.
    cap = agent.Cap("bytes", 12000, strategies=("head_tail",), configurable=False)

    # Codex 0.169 groups an MCP server's tools in a Responses `namespace` tool named
    # mcp__<server>; the model calls one as {"namespace": "mcp__cases", "name": <tool>}.
    def expose(self, tool: str) -> dict:
        return {"namespace": "mcp__cases", "name": tool}

    def offered(self, tool: str) -> str:
        return f"mcp__cases.{tool}"

    def launch(self, work, base_url, mcp, case):
        home = agent.home_of(work, ".codex")
        codex_home = os.path.join(home, ".codex")
        deadline = agent.deadline_ms(case)
        lines = [
            'model = "fake-model"',
            'model_provider = "fake"',
            'approval_policy = "never"',
            'sandbox_mode = "danger-full-access"',
            "check_for_update_on_startup = false",
            "[analytics]", "enabled = false",
            "[feedback]", "enabled = false",
            "[model_providers.fake]",
            'name = "fake"',
            f"base_url = {toml_string(base_url + '/v1')}",
            'wire_api = "responses"',
            'env_key = "FAKE_PROVIDER_KEY"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "[mcp_servers.cases]",
            f"command = {toml_string(mcp[0])}",
            f"args = [{', '.join(toml_string(a) for a in mcp[1:])}]",
            "startup_timeout_sec = 30",
            'default_tools_approval_mode = "approve"',
        ]
        if deadline is not None:
            lines.append(f"tool_timeout_sec = {deadline / 1000}")
        with open(os.path.join(codex_home, "config.toml"), "w") as f:
            f.write("\n".join(lines) + "\n")
        env = agent.base_env(home)
        env.update({"CODEX_HOME": codex_home, "FAKE_PROVIDER_KEY": "sk-fake-offline"})
        argv = ["node", self.installed("bin", "codex.js"), "exec", "--skip-git-repo-check", "--color", "never", "-C", work, agent.PROMPT]
        return argv, env, work


AGENT = Codex()


if __name__ == "__main__":
    agent.main(AGENT)
