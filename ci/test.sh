#!/usr/bin/env bash
# The project's test command: every test of the main workspace, on stable.
# README's second command; .ci/run calls it. Runs unchanged on a laptop.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --workspace --locked "$@"
