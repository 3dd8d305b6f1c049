#!/usr/bin/env bash
# Snapshot gate: a missing, changed or orphaned snapshot fails.
#
#   ci/snapshots.sh                      runs the workspace's tests under `cargo insta test --check
#                                        --unreferenced reject` (installs cargo-insta, pinned, when
#                                        it is missing): never writes, and fails on snapshot files
#                                        no test asserts any more. For a contributor's checkout.
#   ci/snapshots.sh --references FILE    reruns nothing: checks that every committed snapshot is
#                                        listed in FILE, the references insta wrote during a test
#                                        run that had INSTA_SNAPSHOT_REFERENCES_FILE=FILE and
#                                        INSTA_UPDATE=no (`.ci/run` sets both for its tests step,
#                                        where a changed or missing snapshot already failed its
#                                        test), and that no pending `.snap.new` is committed. The
#                                        same verdict as the first form for CI, without a second
#                                        run of every test and without installing cargo-insta.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --references ]]; then
  references=${2:?usage: ci/snapshots.sh --references FILE}
  if [[ ! -s $references ]]; then
    echo "ci/snapshots.sh: $references is missing or empty: run the tests with INSTA_SNAPSHOT_REFERENCES_FILE=$references first" >&2
    exit 2
  fi
  mapfile -t committed < <(git ls-files --cached --others --exclude-standard '*.snap')
  mapfile -t pending < <(git ls-files --cached --others --exclude-standard '*.snap.new' '*.pending-snap')
  # insta writes each asserted snapshot's path (absolute, or relative to the test's directory):
  # compare paths relative to the repository's root.
  referenced=$(sort -u "$references" | xargs -d '\n' realpath -m --relative-to=. | sort -u)
  orphans=$(comm -23 <(printf '%s\n' "${committed[@]}" | sort -u) <(printf '%s\n' "$referenced"))
  status=0
  if [[ -n $orphans ]]; then
    echo "ci/snapshots.sh: $(wc -l <<<"$orphans") committed snapshot(s) no test asserts (delete them, or the test that stopped asserting them is wrong):" >&2
    head -n 30 <<<"$orphans" | while IFS= read -r file; do echo "  $file"; done >&2
    status=1
  fi
  if [[ ${#pending[@]} -gt 0 ]]; then
    echo "ci/snapshots.sh: ${#pending[@]} pending snapshot(s) are committed (review them: cargo insta review):" >&2
    printf '  %s\n' "${pending[@]:0:30}" >&2
    status=1
  fi
  [[ $status == 0 ]] && echo "snapshots: ${#committed[@]} committed, every one asserted by a test; none pending"
  exit $status
fi

if ! cargo insta --version >/dev/null 2>&1; then
  echo "ci/snapshots.sh: installing cargo-insta" >&2
  cargo install --locked cargo-insta --version 1.49.0
fi
exec cargo insta test --workspace --check --unreferenced reject
