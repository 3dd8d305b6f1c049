#!/usr/bin/env bash
# The crates' dependency direction (docs/DESIGN.md, "Dependency direction"): each crate's direct
# normal dependencies among the project's own crates must be in its allowed list, so nothing
# reaches back up (cli → report/driver/generate → suite → protocol). Dev-dependencies are free.
# Offline and quick; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A allowed=(
  [harness-conformance-protocol]=""
  [harness-conformance-suite]="harness-conformance-protocol"
  [harness-conformance-driver]="harness-conformance-suite harness-conformance-protocol harness-ref-adapter"
  [harness-conformance-report]="harness-conformance-suite harness-conformance-protocol"
  [harness-conformance-generate]="harness-conformance-suite harness-conformance-protocol harness-ref harness-ref-props"
  [harness-conformance]="harness-conformance-suite harness-conformance-protocol harness-conformance-driver harness-conformance-report harness-conformance-generate harness-ref-adapter"
  [harness-ref]=""
  [harness-ref-adapter]="harness-ref harness-conformance-protocol"
  [harness-ref-props]="harness-ref harness-conformance-protocol"
)
status=0
for crate in "${!allowed[@]}"; do
  deps=$(cargo tree --offline -e normal -p "$crate" --depth 1 --prefix none --format '{p}' \
           | awk 'NR > 1 && /^harness-/ {print $1}' | sort -u)
  for dep in $deps; do
    if [[ " ${allowed[$crate]} " != *" $dep "* ]]; then
      echo "layers: $crate depends on $dep, which docs/DESIGN.md does not allow" >&2
      status=1
    fi
  done
done
[[ $status -eq 0 ]] && echo "layers: every crate depends only downwards"
exit $status
