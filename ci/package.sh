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

# A crate that reads a file at compile time (include_str!, include_bytes!) must pack that file:
# --no-verify would not notice a missing one. Each such file, resolved from the source that
# names it, must be in its crate's package list (the suite crate's include_dir! is checked below).
missing=0
for crate_dir in conformance/protocol conformance/driver conformance/report conformance/generate \
    conformance/cli conformance/adapters/reference harness-ref props; do
  name=$(sed -n 's/^name = "\(.*\)"/\1/p' "$crate_dir/Cargo.toml" | head -1)
  listed=
  while IFS=: read -r src path; do
    [[ -n $listed ]] || listed=$(cargo package -p "$name" --list --allow-dirty 2>/dev/null)
    file=$(realpath -m --relative-to="$crate_dir" "$(dirname "$src")/$path")
    if ! grep -qxF "$file" <<<"$listed"; then
      echo "package: $src reads $path at compile time, but $name's package does not hold $file (extend its include list)" >&2
      missing=1
    fi
  done < <(grep -roE 'include_(str|bytes)!\("[^"]+"\)' --include='*.rs' "$crate_dir/src" |
    sed -E 's/^([^:]+):include_(str|bytes)!\("([^"]+)"\)$/\1:\3/')
  if grep -rqE 'include_dir!' --include='*.rs' "$crate_dir/src"; then
    echo "package: $crate_dir uses include_dir!, which only the suite crate may (its data is checked below)" >&2
    missing=1
  fi
done
((missing == 0)) || exit 1

# The suite crate embeds its data at build time (include_dir!, include_str!): the package must
# hold every case file of the checkout and the documents the `copy` command writes out.
list=$(cargo package -p harness-conformance-suite --list --allow-dirty 2>/dev/null)
for f in build.rs SPEC.md PROTOCOL.md schema/case.schema.json schema/provider.schema.json providers/anthropic-messages.json; do
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
