#!/usr/bin/env bash
# The capability vocabulary is written once, in conformance/protocol/src/vocabulary.rs (with the
# closed enums of conformance/protocol/src/case.rs). Generated from it: PROTOCOL.md's vocabulary
# table and the schemas' enumerations (conformance/suite/tests/vocabulary.rs), then both kits'
# vocabulary modules, from the schemas (conformance/kits/generate_vocabulary.py).
#
#   ci/vocabulary.sh           check: exit 1 when any of them differs from the code
#   ci/vocabulary.sh --write   rewrite them all
set -euo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
  --write)
    VOCABULARY_WRITE=1 cargo test --locked -q -p harness-conformance-suite --test vocabulary
    python3 conformance/kits/generate_vocabulary.py
    ;;
  "")
    # --workspace: the feature set of ci/test.sh's build, so nothing is compiled again
    cargo test --locked -q --workspace --test vocabulary
    python3 conformance/kits/generate_vocabulary.py --check
    ;;
  *)
    echo "usage: ci/vocabulary.sh [--write]" >&2
    exit 2
    ;;
esac
