#!/usr/bin/env bash
# The packages, proven from this checkout (issue 14): builds the PyPI wheel (maturin, from PyPI,
# in a cached venv) and this platform's npm packages from ONE release build of the runner,
# installs each into a fresh environment without the network, and runs the suite with it
# against the reference harness (both must exit 0). Then the GitHub Action's logic
# (ci/gate_action.py) is tested with the binary the wheel installs the way the action installs
# it (`pip install --target`), and ci/newcomer.sh walks a new author from `init` to a green and a
# red gate with these packages. npm/test checks stage.mjs and the launcher. docs/install.md
# describes the packages.
#
#   ci/packages.sh
#   HARNESS_CONFORMANCE=/path/to/binary ci/packages.sh
#       the npm package gets that binary and no cargo build is started for it; the wheel is
#       still built by maturin from the checkout (it reuses target/release when that is current)
#
# Caches: maturin's venv in $HARNESS_CONFORMANCE_CACHE (default ~/.cache/harness-conformance),
# so a clean clone on the same machine does not download it again. Outputs: target/packages/.
set -euo pipefail
cd "$(dirname "$0")/.."

MATURIN_VERSION=1.16.0
python=${PYTHON:-python3}
cache=${HARNESS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harness-conformance}
out=$PWD/target/packages
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rm -rf "$out"
mkdir -p "$out"

phase_start=$SECONDS
phase() { # name: prints how long the previous phase took
  echo "packages: $1 ($((SECONDS - phase_start)) s so far)"
}

# --- maturin, pinned, in a cached venv ------------------------------------------------------
maturin_venv=$cache/venvs/maturin-$MATURIN_VERSION
if [[ ! -x $maturin_venv/bin/maturin ]]; then
  echo "packages: installing maturin==$MATURIN_VERSION into $maturin_venv"
  rm -rf "$maturin_venv"
  "$python" -m venv "$maturin_venv"
  "$maturin_venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi

# --- one release build ----------------------------------------------------------------------
# maturin runs the same `cargo build --release` as everyone else (no strip, no extra flags), so
# when target/release is current it compiles nothing and packs that very binary.
"$maturin_venv/bin/maturin" build --release --locked --quiet --out "$out/wheels" >"$out/maturin.log" 2>&1 \
  || { cat "$out/maturin.log" >&2; exit 1; }
wheel=$(ls "$out"/wheels/harness_conformance-*.whl)
binary=${HARNESS_CONFORMANCE:-target/release/harness-conformance}
version=$(cargo metadata --no-deps --format-version 1 --locked | "$python" -c \
  'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "harness-conformance"))')
phase "built $(basename "$wheel")"

wheel_sum=$("$python" - "$wheel" <<'EOF'
import hashlib, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = [n for n in z.namelist() if n.endswith(".data/scripts/harness-conformance")]
    print(hashlib.sha256(z.read(names[0])).hexdigest() if len(names) == 1 else "missing")
EOF
)
binary_sum=$(sha256sum "$binary" | cut -d' ' -f1)
if [[ $wheel_sum == "$binary_sum" ]]; then
  echo "packages: the wheel and the npm package carry the same binary (sha256 ${binary_sum:0:16}…)"
elif [[ -n ${HARNESS_CONFORMANCE:-} ]]; then
  echo "packages: note: the wheel's binary (maturin's build) differs from HARNESS_CONFORMANCE=$binary"
else
  echo "packages: the wheel's binary ($wheel_sum) is not target/release's ($binary_sum)" >&2
  exit 1
fi

# --- the wheel, installed offline into a fresh venv -----------------------------------------
# (A venv without pip of its own, filled by maturin's pip: seeding pip costs ten times more.)
"$python" -m venv --without-pip "$scratch/venv"
"$maturin_venv/bin/pip" --python "$scratch/venv/bin/python" install --quiet --disable-pip-version-check \
  --no-index --no-deps "$wheel"
got=$("$scratch/venv/bin/python" -m harness_conformance --version)
[[ $got == "harness-conformance $version"* ]] \
  || { echo "packages: python -m harness_conformance --version said: $got" >&2; exit 1; }
for data in doc/harness-conformance/README.md man/man1/harness-conformance.1 man/man1/harness-conformance-run.1 \
  bash-completion/completions/harness-conformance zsh/site-functions/_harness-conformance \
  fish/vendor_completions.d/harness-conformance.fish; do
  [[ -f $scratch/venv/share/$data ]] \
    || { echo "packages: the wheel did not install share/$data" >&2; exit 1; }
done
(cd "$scratch" && venv/bin/harness-conformance run --quiet >"$out/wheel-run.txt" 2>&1) \
  || { cat "$out/wheel-run.txt" >&2; echo "packages: the wheel's runner failed against the reference" >&2; exit 1; }
# The way the GitHub Action installs it: `pip install --target DIR`, binary in DIR/bin.
"$maturin_venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps --target "$scratch/target" "$wheel"
got=$(PYTHONPATH=$scratch/target "$scratch/venv/bin/python" -m harness_conformance --version)
[[ $got == "harness-conformance $version"* && -x $scratch/target/bin/harness-conformance ]] \
  || { echo "packages: a --target install has no working binary (python -m said: $got)" >&2; exit 1; }
phase "wheel installed offline in a fresh venv: $(tail -2 "$out/wheel-run.txt" | head -1)"

# --- the npm packages, installed from their tarballs with the network off -------------------
node --test npm/test/ >"$out/npm-test.txt" 2>&1 \
  || { cat "$out/npm-test.txt" >&2; echo "packages: npm/test failed" >&2; exit 1; }
grep -E '^# (pass|fail)' "$out/npm-test.txt" | tr '\n' ' ' | sed 's/^/packages: stage.mjs and the launcher: /; s/ $/\n/'
platform=$(node -p 'process.platform + "-" + process.arch')
node npm/stage.mjs platform "$platform" "$binary" "$out/npm/cli-$platform" >/dev/null
node npm/stage.mjs main "$out/npm/harness-conformance" >/dev/null
(cd "$out/npm" && npm pack --silent "./cli-$platform" ./harness-conformance >/dev/null)
main_tgz=$out/npm/harness-conformance-$version.tgz
platform_tgz=$out/npm/harness-conformance-cli-$platform-$version.tgz
ls "$main_tgz" "$platform_tgz" >/dev/null

# An empty cache, --offline, and a registry on a closed local port: any request to a registry
# fails, and `npm http fetch` lines in the log would show one was tried.
fresh=$scratch/npm-project
mkdir -p "$fresh"
echo '{"name": "fresh-project", "private": true}' >"$fresh/package.json"
npm_offline=(--offline --cache "$scratch/npm-cache" --registry http://127.0.0.1:9/ --no-audit --no-fund)
(cd "$fresh" && npm install "${npm_offline[@]}" --loglevel http "$main_tgz" "$platform_tgz") >"$out/npm-install.log" 2>&1 \
  || { cat "$out/npm-install.log" >&2; exit 1; }
if grep -q "http fetch" "$out/npm-install.log"; then
  cat "$out/npm-install.log" >&2
  echo "packages: npm reached for a registry while installing the tarballs" >&2
  exit 1
fi
(cd "$fresh" && npx "${npm_offline[@]}" harness-conformance run --quiet >"$out/npm-run.txt" 2>&1) \
  || { cat "$out/npm-run.txt" >&2; echo "packages: npx harness-conformance failed against the reference" >&2; exit 1; }
phase "npm packages installed offline from tarballs: $(tail -2 "$out/npm-run.txt" | head -1)"

# --- the GitHub Action's logic, with the binary installed as the action installs it ---------
# (The same packages as ci/render-matrix.sh builds, so the build before this step is reused.)
cargo build --locked --release -q -p harness-conformance -p harness-ref-adapter
HARNESS_CONFORMANCE=$scratch/target/bin/harness-conformance HARNESS_REF_ADAPTER=$PWD/target/release/harness-ref-adapter \
  "$python" -m unittest discover -s ci -p 'test_gate_action.py'
phase "the action's logic, with the wheel's binary"

# --- a newcomer's path: init and the README's CI job, from these packages (issue 29) ---------
env -u HARNESS_CONFORMANCE ci/newcomer.sh
phase "done; packages in $out/"
