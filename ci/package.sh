#!/usr/bin/env bash
# Packaging check: every crate meant for the registry packs as `cargo publish` would pack it —
# metadata present, include lists complete, path dependencies carrying versions — and the
# suite crate ships its data (the embedded cases, schemas, SPEC.md, PROTOCOL.md).
#
#   ci/package.sh           pack every publishable crate (seconds; what .ci/run does)
#   ci/package.sh --verify  also build each crate from its packed sources, as `cargo publish`
#                           does (about 18 minutes on the 2-core machine: run it before a release)
#
# Without --verify the packing is `--no-verify`: building nine crates from their packages
# recompiles every dependency for each, far too slow for CI. What verification would catch is
# checked directly instead: every crate's sources are all under src/ (its include list), no
# crate but the suite reads files at compile time, and the suite's data is checked below.
# The crates are packed together (`--workspace`), so the ones not yet on the registry resolve
# against each other's packages. harness-ref-snapshots (test-only) and fuzz/ (its own
# workspace) are not published. .ci/run calls this; it runs unchanged on a laptop.
set -euo pipefail
cd "$(dirname "$0")/.."

verify=(--no-verify)
if [[ "${1:-}" == "--verify" ]]; then
    verify=()
fi
# The suite's data (cases, schemas, SPEC.md, PROTOCOL.md) lives in conformance/, beside the crate
# in conformance/suite/; a package can only hold files under its own folder, so the data is
# linked in for the packing and unlinked after (conformance/suite/build.rs reads it from either).
ci/suite-data.sh link
trap 'ci/suite-data.sh unlink' EXIT
cargo package --workspace --exclude harness-ref-snapshots --allow-dirty "${verify[@]}"

# Only the suite crate reads files at compile time; any other crate doing so would need its
# files in its include list, which --no-verify would not notice.
if grep -rlE 'include_(str|bytes|dir)!' --include='*.rs' \
    conformance/protocol/src conformance/driver/src conformance/report/src \
    conformance/generate/src conformance/cli/src conformance/adapters/reference/src \
    harness-ref/src props/src; then
    echo "package: the files above read files at compile time: extend their crate's include list and this check" >&2
    exit 1
fi

# The suite crate embeds its data at build time (include_dir!, include_str!): the package must
# hold every case file of the checkout and the documents the `copy` command writes out.
list=$(cargo package -p harness-conformance-suite --list --allow-dirty 2>/dev/null)
for f in build.rs SPEC.md PROTOCOL.md schema/case.schema.json; do
    if ! grep -qxF "$f" <<<"$list"; then
        echo "package: harness-conformance-suite does not ship $f" >&2
        exit 1
    fi
done
packed=$(grep -c '^cases/.*\.json$' <<<"$list" || true)
tree=$(find conformance/cases -name '*.json' | wc -l)
if [[ "$packed" -ne "$tree" ]]; then
    echo "package: harness-conformance-suite ships $packed case files; the checkout has $tree" >&2
    exit 1
fi
echo "package: every publishable crate packs; the suite ships all $packed case files"
