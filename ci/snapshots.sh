#!/usr/bin/env bash
# Snapshot gate: a missing, changed or orphaned snapshot fails.
# `cargo insta test --check` never writes; `--unreferenced reject` fails on snapshot files no
# test asserts any more. Installs cargo-insta (pinned) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo insta --version >/dev/null 2>&1; then
  echo "ci/snapshots.sh: installing cargo-insta" >&2
  cargo install --locked cargo-insta --version 1.49.0
fi
exec cargo insta test --workspace --check --unreferenced reject
