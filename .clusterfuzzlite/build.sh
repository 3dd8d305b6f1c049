#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every cargo-fuzz target, its seed corpus and dictionary.
# The base image sets the sanitizer flags through its cargo wrapper; locally the same steps
# run with `SRC=... OUT=... RUSTUP_TOOLCHAIN=nightly .clusterfuzzlite/build.sh` (docs/fuzzing.md).
cd "$SRC/harness-conformance/fuzz"

# Release with debug assertions and overflow checks: the property functions rely on both.
cargo fuzz build -O --debug-assertions

release=target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
    cp "$release/$target" "$OUT/"
    # Hand-picked seeds and committed regression inputs start every corpus.
    corpus=$(mktemp -d)
    cp seeds/"$target"/* "$corpus"/
    if [ -d "regressions/$target" ]; then
        cp regressions/"$target"/* "$corpus"/
    fi
    (cd "$corpus" && zip -q -j "$OUT/${target}_seed_corpus.zip" ./*)
    rm -rf "$corpus"
    cp dict/json.dict "$OUT/$target.dict"
done
