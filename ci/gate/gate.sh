#!/usr/bin/env bash
# Gate a harness on the suite from any CI system (on GitHub Actions, use the action instead: the
# example job beside this file). Copy this file into your harness's repository and call it from CI:
#
#   pip install harness-conformance==1.1.0      # puts the runner on PATH (no Rust needed)
#   ci/gate.sh '<command that starts your adapter>' [baseline.json]
#
# It uses the `harness-conformance` on PATH, else installs the runner from
# HARNESS_CONFORMANCE_PATH (a checkout of the suite, e.g. a git submodule; needs Rust), runs
# every case against your adapter, writes JUnit XML and a Markdown summary under $OUT (default:
# conformance-report/), and exits with the runner's status: 1 on any unexpected result (a new
# failure, an adapter error, a baseline entry that now passes), 2 when the run could not judge
# (the handshake failed, with its cause in both reports; a usage error; an unreadable file).
# The kit your adapter imports must be installed too (pip install harness-conformance-adapter==1.1.0,
# or npm install -D @harness-conformance/adapter@1.1.0).
set -euo pipefail
adapter=${1:?usage: gate.sh '<adapter command>' [baseline.json]}
baseline=${2:-}
out=${OUT:-conformance-report}
mkdir -p "$out"

if ! command -v harness-conformance >/dev/null 2>&1; then
  if [ -z "${HARNESS_CONFORMANCE_PATH:-}" ]; then
    echo "gate.sh: harness-conformance is not on PATH: pip install harness-conformance==VERSION," >&2
    echo "         or set HARNESS_CONFORMANCE_PATH to a checkout of the suite (e.g. a git submodule)" >&2
    echo "         and this script builds it from there" >&2
    exit 2
  fi
  cargo install --locked --path "$HARNESS_CONFORMANCE_PATH/conformance/cli"
fi

args=(run --harness "$adapter")
[ -n "$baseline" ] && args+=(--baseline "$baseline")

status=0
harness-conformance "${args[@]}" --format junit > "$out/conformance.xml" || status=$?
harness-conformance "${args[@]}" --format markdown > "$out/summary.md" || true
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
exit $status
