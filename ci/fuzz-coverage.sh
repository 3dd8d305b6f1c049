#!/usr/bin/env bash
# Source coverage of the fuzz targets' corpora: which lines and regions of harness-ref, the
# runner and the protocol each target's inputs reach.
#
#   ci/fuzz-coverage.sh [target...]          (default: every target in fuzz/)
#
# For each target, runs `cargo +nightly fuzz coverage <target> fuzz/corpus/<target>
# fuzz/seeds/<target>` (a build with `-Cinstrument-coverage`, every input replayed once) and
# summarises the profile with the nightly toolchain's own `llvm-cov` (the `llvm-tools`
# component, installed here when missing: the profile format follows the compiler's LLVM, so
# the system's llvm-cov cannot read it). Prints one line per target and crate (lines and
# regions covered of the crate's own source) and writes the full per-file reports to
# fuzz/coverage/<target>/report.txt. With more than one target it then merges their profiles
# and prints harness-ref's coverage per module from all the corpora together (a line is covered
# when any target's input reaches it; full report in fuzz/coverage/all/report.txt). A corpus
# directory given in FUZZ_CORPUS_<target> replaces fuzz/corpus/<target> (to compare two corpora
# of one target).
#
# Not part of the gate: it needs nightly and a corpus, and takes minutes per target.
# See docs/fuzzing.md ("Coverage").
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz-coverage: needs cargo-fuzz and a nightly toolchain (see docs/fuzzing.md)" >&2
    exit 2
fi
sysroot="$(rustc +nightly --print sysroot)"
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
tools="$sysroot/lib/rustlib/$host/bin"
if [[ ! -x "$tools/llvm-cov" ]]; then
    echo "fuzz-coverage: installing the nightly llvm-tools component"
    rustup component add llvm-tools --toolchain nightly
fi

if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# The crates whose coverage is reported, by the path of their sources in this repository.
crates=(harness-ref/src props/src conformance/protocol/src conformance/suite/src conformance/driver/src)

summary=()
binaries=()
profiles=()
for target in "${targets[@]}"; do
    var="FUZZ_CORPUS_${target}"
    corpus="${!var:-corpus/$target}"
    inputs=("seeds/$target")
    [[ -d "$corpus" ]] && inputs=("$corpus" "${inputs[@]}")
    [[ -d "regressions/$target" ]] && inputs+=("regressions/$target")
    count=$(find "${inputs[@]}" -type f | wc -l)
    echo "fuzz-coverage: $target: replaying $count inputs from ${inputs[*]}"
    cargo +nightly fuzz coverage "$target" "${inputs[@]}" >"/tmp/fuzz-coverage-$target.log" 2>&1 || {
        tail -n 30 "/tmp/fuzz-coverage-$target.log"
        echo "fuzz-coverage: $target: the coverage run failed" >&2
        exit 1
    }
    binary="target/$host/coverage/$host/release/$target"
    profile="coverage/$target/coverage.profdata"
    mkdir -p "coverage/$target"
    binaries+=("$binary")
    profiles+=("$profile")
    "$tools/llvm-cov" report "$binary" -instr-profile="$profile" \
        >"coverage/$target/report.txt"
    # Sum the per-file rows of each crate's own sources (paths under this repository; the
    # report prints them without the leading slash). Columns: regions, missed regions, cover,
    # functions, missed functions, executed, lines, missed lines, ...
    for crate in "${crates[@]}"; do
        prefix="${root#/}/$crate/"
        line=$(awk -v prefix="$prefix" -v target="$target" -v crate="$crate" '
            { sub(/^\//, "", $1) }
            index($1, prefix) == 1 { r += $2; rm += $3; l += $8; lm += $9 }
            END {
                if (l == 0) exit
                printf "%-18s %-24s lines %6d/%-6d (%5.1f%%)  regions %6d/%-6d (%5.1f%%)",
                    target, crate, l - lm, l, 100 * (l - lm) / l, r - rm, r, 100 * (r - rm) / r
            }' "coverage/$target/report.txt")
        [[ -n "$line" ]] && summary+=("$line")
    done
done

echo
echo "fuzz-coverage: covered of each crate's own source (full reports in fuzz/coverage/<target>/report.txt)"
printf '  %s\n' "${summary[@]}"

[[ ${#binaries[@]} -gt 1 ]] || exit 0
# All targets together: one merged profile over every target's binary. Per module of
# harness-ref (a file, or a directory of files such as security/), summed from the per-file rows.
mkdir -p coverage/all
"$tools/llvm-profdata" merge -sparse "${profiles[@]}" -o coverage/all/coverage.profdata
objects=()
for b in "${binaries[@]:1}"; do objects+=(-object "$b"); done
"$tools/llvm-cov" report "${binaries[0]}" "${objects[@]}" -instr-profile=coverage/all/coverage.profdata \
    >coverage/all/report.txt
echo
echo "fuzz-coverage: harness-ref per module, all ${#binaries[@]} targets' corpora together (lines covered)"
awk -v prefix="${root#/}/harness-ref/src/" '
    { sub(/^\//, "", $1) }
    index($1, prefix) == 1 {
        m = substr($1, length(prefix) + 1)
        if (index(m, "/") > 0) m = substr(m, 1, index(m, "/"))
        l[m] += $8; lm[m] += $9; L += $8; LM += $9
    }
    END {
        for (m in l) printf "  %-22s %5d/%-5d (%5.1f%%)\n", m, l[m] - lm[m], l[m], 100 * (l[m] - lm[m]) / l[m]
        printf "  %-22s %5d/%-5d (%5.1f%%)\n", "harness-ref (all)", L - LM, L, 100 * (L - LM) / L
    }' coverage/all/report.txt | sort
