#!/usr/bin/env bash
# Generative conformance testing in CI: `harness-conformance fuzz` for a fixed, short budget
# against the reference harness (it must find nothing) and against every deliberately broken
# variant of the reference (each must be found within the budget). For every finding the
# written case file is replayed through `run --case-file` over the adapter *process*: it must
# fail on the variant and pass on the reference. Prints a table of how many generated cases
# each variant took to find; docs/generative.md records the numbers.
#
#   ci/generative.sh                      seed 1, 1000 cases per variant, 2000 for the reference
#   SEED=7 CASES=500 ci/generative.sh     another seed or budget
#   ci/generative.sh coerces-types no-cap only these variants
set -euo pipefail
cd "$(dirname "$0")/.."

SEED=${SEED:-1}
CASES=${CASES:-1000}
REF_CASES=${REF_CASES:-2000}

# Variants whose fault no generated case can show, with the reason. (The two wording-level
# faults, first-violation-only and dumps-schema, are reached through property names a message
# must contain and a marker in the schema's description, so they are not listed.)
declare -A UNSEEN=()
# Security-gate variants: generated cases carry no security fields (context, policy, keys).
for f in ignores-capabilities reruns-duplicate-keys commits-unverified-tokens \
  confines-paths-lexically echoes-sensitive-arguments drops-refused-calls; do
  UNSEEN[$f]="a security-gate fault; generated cases have no security fields (caught by selftest)"
done
for f in stringifies-non-json encodes-like-json-stringify crashes-on-cycle; do
  UNSEEN[$f]="a non-JSON output fault; generated tools return JSON values only (caught by selftest)"
done
for f in ignores-output-schema skips-falsy-output-validation validates-error-results; do
  UNSEEN[$f]="an output-schema fault; generated tools declare no output schema (caught by selftest)"
done
for f in repairs-strings-the-schema-accepts runs-unvalidated-repairs repairs-silently; do
  UNSEEN[$f]="a repair-profile fault; generated calls carry no double-encoded nested values (caught by selftest)"
done
for f in rejects-as-success spill-preview-over-cap spills-cut-artifact counts-newlines-as-lines \
  trusts-note-in-output; do
  UNSEEN[$f]="a cap-strategy fault; generated cases use the default strategy and unit, and no note-like output (caught by selftest)"
done
for f in drops-cancelled-results cancelled-as-empty-success; do
  UNSEEN[$f]="a cancellation fault; generated turns are never cancelled (caught by selftest)"
done
for f in keeps-results-of-compacted-calls answers-open-calls-twice reruns-answered-calls \
  leaves-open-calls-unanswered; do
  UNSEEN[$f]="a resume fault; generated turns are never resumed from a saved transcript (caught by selftest)"
done
UNSEEN[generic-timeout-message]="a timeout-wording fault; generated cases check no message wording (caught by selftest)"
UNSEEN[serial-drops-extra-calls]="a parallel-calls-off fault; generated turns keep parallel calls on (caught by selftest)"
UNSEEN[cuts-errors-head-only]="an error-text cap fault; generated error messages are short, never over the cap (caught by selftest)"
UNSEEN[parses-arguments-twice]="a duplicate-key fault; generated arguments text is serialised from a value and never repeats a key (caught by selftest)"
UNSEEN[validates-without-refs]="a schema-reference fault; generated schemas use no \$ref, \$defs or \$dynamicRef (caught by selftest)"
UNSEEN[caps-in-quadratic-time]="a time fault: its content is the reference's; generated cases judge what a harness answers, never how long it takes (caught by selftest)"
UNSEEN[trusts-forged-notes]="a forged-note fault; generated outputs hold no copy of the harness's note (caught by selftest)"
UNSEEN[folds-property-names]="a property-name case-folding fault; generated arguments use the schema's own names or wholly unknown ones, never a declared name in another case (caught by selftest)"
for f in counts-tokens-as-chars notes-token-cuts-in-bytes; do
  UNSEEN[$f]="a token-cap fault; generated cases cap in bytes or chars, never in tokens (caught by selftest)"
done
for f in ignores-remaining-context raises-cap-to-remaining-context; do
  UNSEEN[$f]="a context-aware cap fault; generated cases give no remaining context (caught by selftest)"
done
UNSEEN[wrapper-not-escaped]="a result-wrapper fault (a broken version of wraps-results); generated outputs hold no copy of a wrapper marker and run against the reference, which wraps nothing (caught by selftest)"
UNSEEN[sdk-default-deadline]="an inner-default deadline fault; generated handlers never outlast a short inner default within a longer configured deadline (caught by selftest)"
for f in replaces-blocks-with-placeholders flattens-blocks-to-text ignores-mcp-is-error \
  moves-blocks-after-text caps-block-payloads drops-block-results drops-resource-links \
  throws-on-unknown-block-kind renders-links-without-uri passes-oversized-images \
  drops-oversized-images oversized-image-poisons-later-calls; do
  UNSEEN[$f]="a content-block fault; generated tools return text or JSON only (caught by selftest)"
done
UNSEEN[empty-error-content]="a blank-error-message fault; generated handlers always raise with a message (caught by selftest)"
UNSEEN[keeps-blank-text-blocks]="a blank-text-block fault; generated tools return text or JSON only, never blocks (caught by selftest)"
for f in drops-partial-output partial-output-as-success; do
  UNSEEN[$f]="a streamed-output fault; generated tools never stream their output (caught by selftest)"
done
for f in spills-never-cleaned sweeps-referenced-spills spills-shared-across-sessions \
  reuses-artifact-ids; do
  UNSEEN[$f]="a spill-lifecycle fault; generated cases are one turn of one session and never spill (caught by selftest)"
done
for f in resumes-with-another-calls-data approval-sends-empty-content denial-fails-the-batch \
  waits-forever-for-approval; do
  UNSEEN[$f]="a paused-call fault; generated turns never pause a call for the user's decision (caught by selftest)"
done

cargo build -q -p harness-conformance -p harness-ref-adapter
bin=target/debug/harness-conformance
adapter=target/debug/harness-ref-adapter
out=target/generative
rm -rf "$out"
mkdir -p "$out"

faults=("$@")
if [[ ${#faults[@]} -eq 0 ]]; then
  mapfile -t faults < <("$adapter" --list-faults | cut -f1)
fi

status=0
table="$out/table.md"
{
  echo "| target | result | cases to find | requirement(s) of the shrunk case | shrunk to (calls/tools) |"
  echo "|---|---|---:|---|---|"
} >"$table"

echo "== reference: seed $SEED, $REF_CASES cases (must find nothing)"
if line=$("$bin" fuzz --seed "$SEED" --cases "$REF_CASES" --out "$out/reference" -q 2>"$out/reference.log"); then
  echo "$line"
  echo "| reference | nothing found | — ($REF_CASES run) | — | — |" >>"$table"
else
  echo "$line"
  echo "FAIL: the reference broke a requirement (a bug in harness-ref or in the fuzzer's oracle)"
  echo "| reference | **FOUND** | | | |" >>"$table"
  status=1
fi

for fault in "${faults[@]}"; do
  if [[ -n ${UNSEEN[$fault]:-} ]]; then
    echo "== $fault: not expected to be found: ${UNSEEN[$fault]}"
    echo "| $fault | not checked: ${UNSEEN[$fault]} | | | |" >>"$table"
    continue
  fi
  set +e
  report=$("$bin" fuzz --fault "$fault" --seed "$SEED" --cases "$CASES" --out "$out/$fault" -q 2>"$out/$fault.log")
  rc=$?
  set -e
  result=$(grep '^result:' <<<"$report" || true)
  if [[ $rc -ne 1 || $result != *"found ["* ]]; then
    echo "== $fault: NOT FOUND in $CASES cases ($result)"
    echo "| $fault | **not found** | > $CASES | | |" >>"$table"
    status=1
    continue
  fi
  n=$(sed -E 's/.* after ([0-9]+) case.*/\1/' <<<"$result")
  head=$(grep '^FAIL' <<<"$report" | head -1)
  reqs=$(sed -E 's/^FAIL \[([^]]*)\].*/\1/' <<<"$head")
  size=$(sed -E 's/.* to ([0-9]+\/[0-9]+)$/\1/' <<<"$head")
  file=$(ls "$out/$fault"/*.json | head -1)
  # The reproducer, through the adapter process: fails on the variant, passes on the reference.
  # Judged by the case's verdict (the run's closing line), not the exit status: a one-case run
  # also fails when a MUST the case lists has no check there (NOT TESTABLE), which says nothing
  # about the reproducer.
  "$bin" run --harness "$adapter --fault $fault" --case-file "$file" -q >"$out/$fault.replay" 2>&1 || true
  "$bin" run --harness "$adapter" --case-file "$file" -q >"$out/$fault.reference" 2>&1 || true
  if grep -qE ': 1 PASS$' "$out/$fault.replay"; then
    echo "== $fault: the written case does not fail when replayed: $file"
    status=1
  elif ! grep -qE ': 1 PASS$' "$out/$fault.reference"; then
    echo "== $fault: the written case fails on the reference too: $file"
    status=1
  fi
  echo "== $fault: found after $n case(s) [$reqs], shrunk to $size calls/tools"
  echo "| \`$fault\` | found | $n | $reqs | $size |" >>"$table"
done

echo
cat "$table"
exit $status
