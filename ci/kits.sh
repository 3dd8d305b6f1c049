#!/usr/bin/env bash
# The adapter kits, tested as their users get them: each kit is built and installed from this
# checkout into a fresh environment (the Python kit with pip-compatible `uv pip install <path>`
# into a new venv; the TypeScript kit as the tarball `npm pack` makes, into a temporary project),
# its unit tests run against that installed copy, and each template adapter, built on the
# installed kit, runs the suite against its baseline — directly, through the pytest plugin, and
# through the node:test helper. Also: the kits' vocabulary modules match the protocol's schemas,
# and the Python package type-checks with mypy --strict.
#
#   ci/kits.sh            (HARNESS_CONFORMANCE=/path/to/binary skips building the runner)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-python3.11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

runner=${HARNESS_CONFORMANCE:-}
if [[ -z $runner ]]; then
  cargo build --locked --release -q -p harness-conformance
  runner=$root/target/release/harness-conformance
fi

# The suite against one adapter command and its baseline; the report is printed in full only
# when the run fails.
suite() {
  local name=$1 command=$2 baseline=$3
  if "$runner" run --harness "$command" --quiet --baseline "$baseline" -o "$work/$name.txt"; then
    tail -n 2 "$work/$name.txt"
  else
    cat "$work/$name.txt"
    return 1
  fi
}

echo "--- vocabulary: generated modules match conformance/schema/protocol"
python3 conformance/kits/generate_vocabulary.py --check

echo "--- python kit: install from the checkout into a fresh venv"
conformance/adapters/install.sh uv
uv=$root/conformance/adapters/.tools/bin/uv
venv=$work/py
"$uv" venv --quiet --python "$python" "$venv"
"$uv" pip install --quiet --python "$venv/bin/python" --no-deps -r conformance/kits/python/requirements-dev.txt conformance/kits/python
installed=$("$venv/bin/python" -c 'import harness_conformance_adapter as k; print(k.__file__)')
[[ $installed == "$venv"/* ]] || { echo "kits.sh: tests would import $installed, not the installed kit" >&2; exit 1; }

echo "--- python kit: mypy --strict (the package, and the template against it)"
(cd conformance/kits/python && "$venv/bin/mypy" --strict --python-version 3.10 -p harness_conformance_adapter)
"$venv/bin/mypy" --strict --python-version 3.10 conformance/adapters/template-python/adapter.py

echo "--- python kit: unit tests"
"$venv/bin/python" -m pytest -q -p no:cacheprovider conformance/kits/python/tests

# The oldest Python the kit supports, when this machine has it (pyenv's, or python3.10 on PATH).
py310=$(ls /root/.pyenv/versions/3.10.*/bin/python3.10 2>/dev/null | tail -n 1 || true)
if [[ -z $py310 ]] && python3.10 --version >/dev/null 2>&1; then py310=$(command -v python3.10); fi
if [[ -n $py310 ]]; then
  echo "--- python kit: unit tests on $("$py310" --version)"
  "$uv" venv --quiet --python "$py310" "$work/py310"
  "$uv" pip install --quiet --python "$work/py310/bin/python" --no-deps -r conformance/kits/python/requirements-dev.txt conformance/kits/python
  "$work/py310/bin/python" -m pytest -q -p no:cacheprovider conformance/kits/python/tests
else
  echo "--- python kit: no Python 3.10 on this machine; the 3.10 run is left out (mypy still checks for 3.10)"
fi

echo "--- python template on the installed kit, against its baseline"
suite template-python "$venv/bin/python conformance/adapters/template-python/adapter.py" \
  conformance/adapters/template-python/baseline.json
echo "--- python template through the pytest plugin (validation cases)"
(cd conformance/adapters/template-python && "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  --harness-conformance=adapter:adapter --harness-conformance-runner="$runner" \
  --harness-conformance-baseline=baseline.json --harness-conformance-run='validation/*')

echo "--- typescript kit: build and unit tests"
(cd conformance/kits/typescript && npm ci --silent --no-audit --no-fund && npm test --silent)
echo "--- typescript kit: pack, install the tarball into a temporary project"
tarball=$(cd conformance/kits/typescript && npm pack --silent --pack-destination "$work")
python3 - "$work/$tarball" <<'PY'
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    names = tar.getnames()
    manifest = json.load(tar.extractfile("package/package.json"))
assert not manifest.get("dependencies"), f"runtime dependencies: {manifest['dependencies']}"
for needed in ("package/dist/index.js", "package/dist/index.d.ts", "package/dist/node-test.d.ts"):
    assert needed in names, f"{needed} missing from the tarball"
assert not any(n.startswith("package/src/") or n.startswith("package/test/") for n in names), names
print(f"{sys.argv[1].rsplit('/', 1)[-1]}: {len(names)} files, no runtime dependencies")
PY
project=$work/ts
mkdir -p "$project"
cp conformance/adapters/template-typescript/{adapter.ts,tsconfig.json} "$project/"
dev=$(cd conformance/adapters/template-typescript && node -p 'Object.entries(require("./package.json").devDependencies).map(([n, v]) => `${n}@${v}`).join(" ")')
(cd "$project" && echo '{"type": "module", "private": true}' > package.json &&
  npm install --silent --no-audit --no-fund "$work/$tarball" $dev && npx --no-install tsc -p tsconfig.json)

echo "--- typescript template on the packed kit, against its baseline"
suite template-typescript "node $project/dist/adapter.js" conformance/adapters/template-typescript/baseline.json
echo "--- typescript template through the node:test helper (validation cases)"
cat > "$project/conformance.test.mjs" <<JS
import { conformanceTests } from '@harness-conformance/adapter/node-test';
conformanceTests({ command: 'node $project/dist/adapter.js', runner: '$runner', run: ['validation/*'],
                   baseline: '$root/conformance/adapters/template-typescript/baseline.json' });
JS
(cd "$project" && node --test conformance.test.mjs | tail -9)
