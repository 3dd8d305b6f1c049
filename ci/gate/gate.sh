#!/usr/bin/env bash
# Gate a harness on the suite. Copy this file into your harness's repository and call it from CI:
#
#   ci/gate.sh '<command that starts your adapter>' [baseline.json]
#
# It installs the runner (HARNESS_CONFORMANCE_VERSION, or from HARNESS_CONFORMANCE_PATH when you
# vendor the suite as a submodule), runs every case against your adapter, writes JUnit XML and a
# Markdown summary under $OUT (default: conformance-report/), and exits non-zero on any unexpected
# result: a new failure, an adapter error, or a baseline entry that now passes.
set -euo pipefail
adapter=${1:?usage: gate.sh '<adapter command>' [baseline.json]}
baseline=${2:-}
out=${OUT:-conformance-report}
mkdir -p "$out"

if ! command -v harness-conformance >/dev/null 2>&1; then
  if [ -n "${HARNESS_CONFORMANCE_PATH:-}" ]; then
    cargo install --locked --path "$HARNESS_CONFORMANCE_PATH/conformance"
  else
    cargo install --locked harness-conformance ${HARNESS_CONFORMANCE_VERSION:+--version "$HARNESS_CONFORMANCE_VERSION"}
  fi
fi

args=(run --harness "$adapter")
[ -n "$baseline" ] && args+=(--baseline "$baseline")

status=0
harness-conformance "${args[@]}" --format junit > "$out/conformance.xml" || status=$?
harness-conformance "${args[@]}" --format markdown > "$out/summary.md" || true
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
exit $status
