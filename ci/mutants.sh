#!/usr/bin/env bash
# Mutation testing of the reference harness, with the conformance suite as the only test
# (docs/mutants.md). Every small change cargo-mutants makes to harness-ref, or to the reference
# adapter where it shapes answers, is a fault a harness could have; the suite run against the
# mutated reference must catch it. What is mutated, what runs as the test and how it is built
# are in .cargo/mutants.toml; this script installs the tool (pinned), picks the mode and gates.
#
#   ci/mutants.sh                      the full run, every mutant (hours on 2 cores)
#   ci/mutants.sh --shard K/N          one shard of the full run (0 <= K < N, round-robin)
#   ci/mutants.sh --in-diff [BASE]     only mutants in lines changed since the merge base of
#                                      HEAD and BASE (default: origin/main, else main; on main
#                                      itself, its first parent): the PR gate, in .ci/run
#
# Options: --jobs J (parallel build directories, default 1: the tree is mutated in place, no
# copies: do not edit or build in it meanwhile), --profile P (the cargo profile for the baseline
# and every mutant, default `test`, as .cargo/mutants.toml says: in `.ci/run` it reuses the build
# of the tests step), --timeout S (per mutant's test, default 120 s;
# the test bounds each case at 30 s itself; a build may take MUTANTS_BUILD_TIMEOUT, default
# 900 s), --output DIR (where mutants.out goes, default target/mutants-out), and after `--`
# anything else for cargo-mutants, e.g. `-- --re 'harness-ref/src/cap\.rs'` for one file
# (cargo-mutants' `-f` adds to the configured files instead of narrowing them) or `-- --list`.
# MUTANTS_DIFF_LIMIT (default 40) bounds the --in-diff gate: a diff with more mutants tests a
# round-robin sample of about that many and says so.
#
# Exit status: 0 when no mutant was missed (or every missed one is triaged as equivalent or
# unobservable in ci/mutants-triage.tsv), 1 otherwise; cargo-mutants' own failures (a broken
# baseline, a build error) pass through.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_MUTANTS=27.1.0
mode=full
shard=
base=
jobs=1
profile="test"
timeout=120
output=target/mutants-out
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --in-diff)
      mode=in-diff
      if [[ $# -gt 1 && $2 != -* ]]; then base=$2; shift; fi ;;
    --shard) shard=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --profile) profile=$2; shift ;;
    --timeout) timeout=$2; shift ;;
    --output) output=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/mutants.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

install_cargo_mutants() {
  if [[ $(cargo mutants --version 2>/dev/null) != "cargo-mutants $CARGO_MUTANTS" ]]; then
    echo "ci/mutants.sh: installing cargo-mutants $CARGO_MUTANTS" >&2
    cargo install --locked cargo-mutants --version "$CARGO_MUTANTS"
  fi
}

args=(--timeout "$timeout" --output "$output" --colors never --no-times --profile "$profile")
if [[ $jobs -le 1 ]]; then
  # No copy of the tree: the build reuses target/ from run to run, and nothing large is
  # written outside it. cargo-mutants restores each file after its mutant.
  args+=(--in-place)
else
  args+=(--jobs "$jobs")
fi
[[ -n $shard ]] && args+=(--shard "$shard")

if [[ $mode == in-diff ]]; then
  if [[ -z $base ]]; then
    base=main
    git rev-parse --verify -q origin/main >/dev/null && base=origin/main
  fi
  from=$(git merge-base HEAD "$base")
  if [[ $from == $(git rev-parse HEAD) ]]; then
    # On the base itself (CI on main): the last change is what the first parent does not have.
    from=$(git rev-parse HEAD^1 2>/dev/null || echo "$from")
  fi
  mkdir -p "$output"
  diff=$output/changes.diff
  # The working tree against the merge base, so uncommitted edits are gated too; Rust only.
  git diff "$from" -- '*.rs' >"$diff"
  if [[ ! -s $diff ]]; then
    # No Rust line changed: nothing to mutate, and no need for the tool.
    echo "ci/mutants.sh: 0 mutant(s): no Rust line changed since $(git rev-parse --short "$from")"
    exit 0
  fi
  install_cargo_mutants
  count=$(cargo mutants --list --in-diff "$diff" | grep -c . || true)
  echo "ci/mutants.sh: $count mutant(s) in lines changed since $(git rev-parse --short "$from")"
  if [[ $count -eq 0 ]]; then
    exit 0
  fi
  limit=${MUTANTS_DIFF_LIMIT:-40}
  if [[ -z $shard && $count -gt $limit ]]; then
    n=$(((count + limit - 1) / limit))
    echo "ci/mutants.sh: more than $limit: testing shard 0/$n (round-robin); the rest with --shard K/$n"
    args+=(--shard "0/$n")
  fi
  args+=(--in-diff "$diff")
fi

install_cargo_mutants
# The baseline: the unmutated tree must pass the test, or every mutant would look caught.
# cargo-mutants' own baseline would run the mutated packages' tests rather than test_package's
# (cargo-mutants 27.1: lab.rs run_baseline), so this script runs it and skips cargo-mutants'.
echo "ci/mutants.sh: baseline: the suite against the unmutated reference"
nice -n "${MUTANTS_NICE:-10}" cargo test --locked --profile "$profile" \
  -p harness-conformance-suite --test reference_fast
args+=(--baseline skip --build-timeout "${MUTANTS_BUILD_TIMEOUT:-900}")

status=0
nice -n "${MUTANTS_NICE:-10}" cargo mutants "${args[@]}" "${extra[@]}" || status=$?
# cargo-mutants: 0 all caught, 2 some missed, 3 some timed out (a timeout is a fault the
# runner's own per-case timeout catches), anything else is its own failure.
case $status in
  0|3) exit 0 ;;
  2) exec python3 ci/mutants_report.py --gate ci/mutants-triage.tsv "$output/mutants.out" ;;
  *) exit "$status" ;;
esac
