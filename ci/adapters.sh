#!/usr/bin/env bash
# Real harnesses through their adapters: installs every pinned harness (idempotent, fast when
# already installed), then runs the suite against each adapter with its expected-failures baseline,
# so this step turns red only when a harness's behaviour changes (a new failure, or a listed
# failure that now passes). Runs unchanged on a laptop; needs python3.11 and node/npm.
# The coding agents (codex, claude-code, gemini-cli, opencode, qwen-code, cline, continue-cli,
# copilot) are driven over their wire (conformance/wire/): one CLI process per case, so a full
# column takes minutes (docs/benchmarks.md). They run here only when named (ci/adapters.sh codex
# claude-code), with WIRE_JOBS workers (default 4) when only agents are named; CI's gate runs a
# smoke column of each (ci/wire.sh), which keeps .ci/run inside its time budget.
#
#   ci/adapters.sh                  all adapters
#   ci/adapters.sh pydantic-ai mcp-python
#   ci/adapters.sh --rebaseline [NAME...]
#                                   rewrite each adapter's baseline.json from a fresh run, with
#                                   plain-words reasons (after the cases change; review the diff)
set -euo pipefail
cd "$(dirname "$0")/.."

rebaseline=false
if [[ ${1:-} == --rebaseline ]]; then
  rebaseline=true
  shift
fi
adapters=(mcp-python mcp-typescript pydantic-ai langgraph-default langgraph-handle-errors template-python template-typescript
  fastmcp fastmcp-default langchain-mcp-adapters inspect-ai smolagents)
adapters+=(google-adk google-adk-arg-validation crewai strands-agents llama-index)
adapters+=(agent-framework agent-framework-detailed-errors semantic-kernel langgraph-js langchain-js-agent mastra)
adapters+=(openai-agents anthropic google-genai haystack agno ai ai-strict)
# A coding agent's case is one CLI run, seconds to a minute on a loaded machine: the runner's
# per-case bound sits above the adapters' own (WIRE_CASE_TIMEOUT, 110 s), so the adapter ends a hung agent.
timeout=(--timeout 150)
# CrewAI and LlamaIndex take seconds of CPU to import (CrewAI loads a 7.8 MB catalog module): on a loaded
# machine their handshake can pass the runner's default 60 s.
timeout+=(--start-timeout 180)
[[ $# -gt 0 ]] && adapters=("$@")
# Coding agents alone: more workers than cores, since a case is partly spent waiting on the agent's start-up.
jobs=2
agents_only=true
for name in "${adapters[@]}"; do
  grep -q '^import agent ' "conformance/adapters/$name/adapter.py" 2>/dev/null || agents_only=false
done
if $agents_only; then
  jobs=${WIRE_JOBS:-4}
  # room for the driver's restarts of an agent that did not offer the case's tools yet (three starts)
  timeout=(--timeout 400 --start-timeout 180)
fi

conformance/adapters/install.sh "${adapters[@]}"
# The adapters' shared plumbing is the adapter kits (conformance/kits/); ci/kits.sh tests them.

# HARNESS_CONFORMANCE=/path/to/binary skips the build (e.g. a binary CI built in an earlier step).
runner=${HARNESS_CONFORMANCE:-}
if [[ -z $runner ]]; then
  cargo build --locked --release -q -p harness-conformance
  runner=target/release/harness-conformance
fi

command_for() {
  echo "conformance/adapters/$1/run"
}

if $rebaseline; then
  # one command for it, shared with the lead's after-merge regeneration
  HARNESS_CONFORMANCE=$runner exec conformance/adapters/regenerate_baselines.sh "${adapters[@]}"
fi

if "$runner" matrix --help >/dev/null 2>&1; then
  # One grid of every case against every adapter (the reference harness first, for comparison),
  # written as Markdown and self-contained HTML; each adapter is judged against its baseline.
  args=(--harness reference=reference)
  for name in "${adapters[@]}"; do
    args+=(--harness "$name=$(command_for "$name")" --baseline "$name=conformance/adapters/$name/baseline.json")
  done
  mkdir -p target/matrix
  exec "$runner" matrix "${args[@]}" --jobs "$jobs" "${timeout[@]}" --markdown target/matrix/matrix.md --site target/matrix/site
fi

status=0
for name in "${adapters[@]}"; do
  echo "::: $name"
  "$runner" run --harness "$(command_for "$name")" --jobs "$jobs" "${timeout[@]}" --baseline "conformance/adapters/$name/baseline.json" || status=1
done
exit $status
