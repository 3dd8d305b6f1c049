#!/usr/bin/env bash
# The wire-level pieces (conformance/wire/: fake model provider, MCP tool server, agent driver)
# and the coding agents that are too slow for a full column in every CI run:
#   1. the wire tests: each dialect streamed, whole and cut off; the provider over loopback HTTP;
#      the MCP server as a process;
#   2. the harness-ref-backed round trip: every case's results, written into each dialect's
#      follow-up request and parsed back, must equal what harness-ref produced (the suite must
#      pass in full through it);
#   3. the cut-off scenario (a max-tokens stop inside a call's JSON) for every agent, compared
#      with conformance/wire/cutoff-expected.json;
#   4. a smoke column for each coding agent against its smoke baseline (smoke-baseline.json; the
#      cases its smoke-run file names, else the correlation cases; baseline.json is the full
#      column's), WIRE_JOBS workers each (default 4). Their full columns run on demand:
#      ci/adapters.sh codex claude-code gemini-cli opencode qwen-code cline continue-cli copilot.
# Runs unchanged on a laptop; needs python3.11 and node/npm. WIRE_AGENTS=0 stops after step 2.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3.11}
# A run's full report only when it fails; its closing lines otherwise.
report() {
  local log
  log=$(mktemp)
  if "$@" >"$log" 2>&1; then tail -n 2 "$log"; rm -f "$log"; else cat "$log"; rm -f "$log"; return 1; fi
}
echo "wire: unit tests"
"$python" -m unittest discover -q -s conformance/wire/tests

runner=${HARNESS_CONFORMANCE:-}
if [[ -z $runner ]]; then
  cargo build --locked --release -q -p harness-conformance
  runner=target/release/harness-conformance
fi
# Built beside harness-conformance, so both have the feature set `cargo run -p harness-conformance`
# gave the dependencies they share (alone, the adapter's smaller set compiled jsonschema,
# harness-ref and others again: about 70 s of a clean clone's CI run).
cargo build --locked --release -q -p harness-conformance -p harness-ref-adapter
echo "wire: harness-ref results round-tripped through every dialect"
report "$runner" run --quiet --harness "$python conformance/wire/tests/roundtrip.py target/release/harness-ref-adapter"

[[ ${WIRE_AGENTS:-1} == 0 ]] && exit 0
agents=(codex claude-code gemini-cli opencode)
agents+=(qwen-code cline continue-cli copilot)
conformance/adapters/install.sh "${agents[@]}"
echo "wire: the cut-off scenario"
"$python" conformance/wire/cutoff.py --expect conformance/wire/cutoff-expected.json "${agents[@]}"
# The runner's per-case bound sits above the adapters' own (WIRE_CASE_TIMEOUT, 110 s) and leaves
# room for the driver's restarts of an agent that did not offer the case's tools yet (three starts).
for name in "${agents[@]}"; do
  selection=$(cat "conformance/adapters/$name/smoke-run" 2>/dev/null || echo correlation)
  jobs=$(cat "conformance/adapters/$name/jobs" 2>/dev/null || echo "${WIRE_JOBS:-4}")
  echo "wire: $name smoke column"
  report "$runner" run --quiet --jobs "$jobs" --timeout 400 --run "$selection" \
    --harness "conformance/adapters/$name/run" --baseline "conformance/adapters/$name/smoke-baseline.json"
done
