#!/usr/bin/env bash
# Regenerates the expected-failures baseline of each named adapter column from a fresh full run,
# with plain-words reasons: the one command to run after the cases change (then review the diff).
#
#   conformance/adapters/regenerate_baselines.sh [--fresh] [COLUMN...]
#   conformance/adapters/regenerate_baselines.sh --smoke [AGENT...]
#
# COLUMN defaults to every library column of ci/adapters.sh and both templates; the coding agents
# (codex claude-code gemini-cli opencode qwen-code cline continue-cli copilot) run only when
# named, one at a time with WIRE_JOBS workers (default 4: a case is mostly one agent's start-up,
# partly spent waiting), and each also gets its smoke-baseline.json (ci/wire.sh's smoke column:
# the cases its smoke-run file selects, else the correlation cases) from a second, smaller run.
# How long each takes:
# docs/benchmarks.md, "coding agents over the wire". `--smoke` rewrites only the coding agents'
# smoke baselines (all eight unless named): what ci/wire.sh checks, minutes instead of hours, so
# CI stays true after the cases change while the full agent columns wait for an on-demand run.
#
# What it does: installs the named harnesses (install.sh, idempotent); builds the runner once
# (HARNESS_CONFORMANCE=/path/to/binary skips that); copies the suite once; then runs the columns
# two at a time (JOBS workers each, default 1, so two columns keep the two cores busy) with
# `run --write-baseline`, and turns each run's report into the column's baseline.json with
# write_baselines.py. A reason already reviewed in the column's baseline.json is kept where that
# case still fails the same requirements (pass --fresh to rewrite every reason). Each column's
# report and log stay in target/baselines/ (COLUMN.jsonl, COLUMN.log), and its duration is
# printed when it finishes.
set -euo pipefail
cd "$(dirname "$0")/../.."

fresh=()
smoke_only=0
if [[ ${1:-} == --fresh ]]; then
  fresh=(--fresh)
  shift
elif [[ ${1:-} == --smoke ]]; then
  smoke_only=1
  shift
fi
agents=(codex claude-code gemini-cli opencode qwen-code cline continue-cli copilot)
columns=(mcp-python mcp-typescript pydantic-ai langgraph-default langgraph-handle-errors template-python template-typescript
  fastmcp fastmcp-default langchain-mcp-adapters inspect-ai smolagents
  google-adk google-adk-arg-validation crewai strands-agents llama-index
  agent-framework agent-framework-detailed-errors semantic-kernel langgraph-js langchain-js-agent mastra
  openai-agents anthropic google-genai haystack agno ai ai-strict)
((smoke_only)) && columns=("${agents[@]}")
[[ $# -gt 0 ]] && columns=("$@")
for name in "${columns[@]}"; do
  [[ -x conformance/adapters/$name/run ]] || { echo "regenerate_baselines.sh: no adapter conformance/adapters/$name/run" >&2; exit 2; }
  if ((smoke_only)) && ! grep -q '^import agent ' "conformance/adapters/$name/adapter.py" 2>/dev/null; then
    echo "regenerate_baselines.sh: --smoke is for coding agents; $name has no smoke column" >&2
    exit 2
  fi
done
jobs_per_column=${JOBS:-1}
# A coding agent's case is one CLI run (seconds to a minute): the runner's per-case bound sits
# above the wire adapters' own (WIRE_CASE_TIMEOUT, 110 s); for library harnesses it changes nothing.
timeout=150

conformance/adapters/install.sh "${columns[@]}"

runner=${HARNESS_CONFORMANCE:-}
if [[ -z $runner ]]; then
  cargo build --locked --release -q -p harness-conformance
  runner=target/release/harness-conformance
fi
out=target/baselines
mkdir -p "$out"
rm -rf "$out/suite"
"$runner" copy "$out/suite" >/dev/null

# A coding agent (driven over its wire) is a column whose adapter is built on conformance/wire/agent.py.
is_agent() { grep -q '^import agent ' "conformance/adapters/$1/adapter.py" 2>/dev/null; }

one() {
  local name=$1 command=conformance/adapters/$1/run start=$SECONDS jobs=$jobs_per_column timeout=$timeout
  if is_agent "$name"; then
    # an agent whose cases disturb one another's start-up says how many may run at once (its jobs file)
    jobs=$(cat "conformance/adapters/$name/jobs" 2>/dev/null || echo "${WIRE_JOBS:-4}")
    # room for the driver's restarts of an agent that did not offer the case's tools yet
    # (WIRE_OFFER_ATTEMPTS, three starts): on a loaded machine one start takes up to a minute
    timeout=400
    # the smoke column's baseline (ci/wire.sh): the cases of its smoke-run file, else the correlation cases
    "$runner" run --harness "$command" --jobs "$jobs" --timeout "$timeout" --start-timeout 300 --quiet \
      --run "$(cat "conformance/adapters/$name/smoke-run" 2>/dev/null || echo correlation)" \
      --write-baseline "conformance/adapters/$name/smoke-baseline.json" >"$out/$name.smoke.log" 2>&1 || true
    if ((smoke_only)); then
      echo "$name: smoke baseline, $((SECONDS - start)) s"
      return 0
    fi
  fi
  # exit status 1 only says that the run found failures, which is what a baseline records
  "$runner" run --harness "$command" --jobs "$jobs" --timeout "$timeout" --start-timeout 300 --quiet --format json \
    -o "$out/$name.jsonl" --write-baseline "$out/$name.baseline.json" 2>"$out/$name.log" || true
  if [[ ! -s $out/$name.baseline.json ]]; then
    echo "$name: the run wrote no baseline (see $out/$name.log)" >&2
    return 1
  fi
  # a run whose handshake failed ran no case: its "baseline" would list every case as an ERROR
  if ! python3 -c 'import json, sys; sys.exit(1 if json.loads(open(sys.argv[1]).readlines()[-1]).get("handshake_error") else 0)' \
    "$out/$name.jsonl"; then
    echo "$name: the handshake failed, baseline left as it was (see $out/$name.log)" >&2
    return 1
  fi
  python3 conformance/adapters/write_baselines.py "${fresh[@]}" "$name" "$out/$name.jsonl" "$out/suite" "$command" \
    "$out/$name.baseline.json"
  echo "$name: $((SECONDS - start)) s"
}

status=0
running=0
for name in "${columns[@]}"; do
  # a coding-agent column runs alone: its WIRE_JOBS workers use the machine
  if is_agent "$name"; then
    while ((running > 0)); do
      wait -n || status=1
      running=$((running - 1))
    done
    one "$name" || status=1
    continue
  fi
  if ((running == 2)); then
    wait -n || status=1
    running=$((running - 1))
  fi
  one "$name" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
