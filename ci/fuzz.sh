#!/usr/bin/env bash
# Fuzz every cargo-fuzz target in fuzz/ for a short, fixed time.
#
#   ci/fuzz.sh [seconds-per-target]        (default 30)
#
# Installs cargo-fuzz when it is missing, builds every target, replays the committed seeds and
# regression inputs first (a quick, deterministic check), then fuzzes each target for the
# given time starting from its seeds and the dictionary fuzz/dict/json.dict. With a nightly
# toolchain installed it builds with AddressSanitizer (`cargo +nightly fuzz ...`); otherwise
# on stable without a sanitizer (`-s none`). Set FUZZ_SANITIZER=none|address to choose.
# FUZZ_OPT_LEVEL=N builds the targets at that opt-level instead of the release profile's 3:
# `.ci/run`'s smoke uses 1, which builds in about 60% of the time (the whole build from a clean
# clone: 153 s against 281 s) at 0.7-1.1x the executions per second; campaigns keep the default.
# Exits non-zero when any target crashes; prints exec/s, coverage and features per target.
# Crashes land in fuzz/artifacts/<target>/; see docs/fuzzing.md for what to do with one.
#
# Generated corpora go to fuzz/corpus/<target>/ (git-ignored) and are reused by later runs.
set -euo pipefail

seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi

toolchain=()
sanitizer="${FUZZ_SANITIZER:-}"
if [[ -z "$sanitizer" ]]; then
    if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        sanitizer=address
    else
        sanitizer=none
    fi
fi
if [[ "$sanitizer" != none ]]; then
    toolchain=(+nightly)
fi
fuzz=(cargo "${toolchain[@]}" fuzz)
opt_level="release profile"
if [[ -n ${FUZZ_OPT_LEVEL:-} ]]; then
    export CARGO_PROFILE_RELEASE_OPT_LEVEL=$FUZZ_OPT_LEVEL
    opt_level="opt-level $FUZZ_OPT_LEVEL"
fi
echo "fuzz: toolchain ${toolchain[*]:-stable}, sanitizer $sanitizer, $opt_level, ${seconds}s per target"

mapfile -t targets < <("${fuzz[@]}" list)
"${fuzz[@]}" build -s "$sanitizer"

failed=()
summary=()
for target in "${targets[@]}"; do
    inputs=("seeds/$target")
    [[ -d "regressions/$target" ]] && inputs+=("regressions/$target")

    echo "fuzz: $target: replaying ${inputs[*]}"
    if ! "${fuzz[@]}" run -s "$sanitizer" "$target" "${inputs[@]}" -- -runs=0 >"/tmp/fuzz-$target-replay.log" 2>&1; then
        tail -n 40 "/tmp/fuzz-$target-replay.log"
        failed+=("$target (replay)")
        continue
    fi

    echo "fuzz: $target: fuzzing for ${seconds}s"
    mkdir -p "corpus/$target"
    log="/tmp/fuzz-$target.log"
    status=0
    "${fuzz[@]}" run -s "$sanitizer" "$target" "corpus/$target" "seeds/$target" -- \
        -dict=dict/json.dict -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1 || status=$?
    execs=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
    ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
    summary+=("$(printf '%-20s %10s exec/s %8s edges %8s features' "$target" "$execs" "$cov" "$ft")")
    if [[ $status -ne 0 ]]; then
        grep -E -A 30 'panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY' "$log" | head -n 80 || tail -n 40 "$log"
        failed+=("$target")
    fi
done

echo
echo "fuzz: results (${seconds}s per target, sanitizer $sanitizer)"
printf '  %s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: FAILED: ${failed[*]} (inputs in fuzz/artifacts/; see docs/fuzzing.md)"
    exit 1
fi
echo "fuzz: no crash"
