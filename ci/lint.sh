#!/usr/bin/env bash
# Lints that gate every change: clippy with warnings as errors, and rustfmt.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo fmt --all -- --check
