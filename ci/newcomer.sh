#!/usr/bin/env bash
# A new Python author's path (issue 29), timed: from a project holding only a pyproject.toml to a
# green, then a deliberately red, gate, with nothing but packages built from this checkout,
# installed from files. The steps are the README's:
#   1. a virtual environment with the runner and the Python kit (pip, --no-index, from files);
#   2. `harness-conformance init`: the adapter, the first baseline, the CI job;
#   3. the CI job's gate as the GitHub Action runs it (ci/gate_action.py resolve, install, run),
#      in an environment without the kit: the action installs it from the same files;
#      it must exit 0;
#   4. the toy harness broken on purpose (it runs unknown tools): the same gate must exit 1,
#      and its annotations name the requirement whose check failed.
#
#   ci/newcomer.sh                      the runner's wheel from target/packages/wheels (made by
#                                       ci/packages.sh, which calls this script)
#   HARNESS_CONFORMANCE=bin ci/newcomer.sh
#                                       no runner wheel: that binary stands in for it (on the
#                                       venv's PATH, and in the action's install folder)
#
# The kit's wheel is built here (pip wheel: flit_core comes from PyPI or pip's cache). Prints one
# line per step with its seconds; docs/install.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
files=$scratch/files
mkdir -p "$files"

version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
shopt -s nullglob
wheels=(target/packages/wheels/harness_conformance-"$version"-*.whl)
shopt -u nullglob
runner_wheel=${wheels[0]:-}
if [[ -n ${HARNESS_CONFORMANCE:-} ]]; then
  runner_wheel=
  binary=$(cd "$(dirname "$HARNESS_CONFORMANCE")" && pwd)/$(basename "$HARNESS_CONFORMANCE")
elif [[ -z $runner_wheel ]]; then
  echo "newcomer.sh: no runner wheel in target/packages/wheels (run ci/packages.sh) and no HARNESS_CONFORMANCE" >&2
  exit 2
else
  cp "$runner_wheel" "$files/"
fi

start=$SECONDS
step_start=$SECONDS
step() { # what was done: prints it with the seconds it took
  echo "newcomer: $1 ($((SECONDS - step_start)) s; $((SECONDS - start)) s in all)"
  step_start=$SECONDS
}

"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$files" conformance/kits/python \
  >"$scratch/kit-wheel.log" 2>&1 || { cat "$scratch/kit-wheel.log" >&2; exit 1; }
ls "$files"/harness_conformance_adapter-"$version"-*.whl >/dev/null
start=$SECONDS
step_start=$SECONDS
echo "newcomer: the kit's wheel is built; the clock starts"

# --- 1. the project and its environment ------------------------------------------------------
project=$scratch/my-harness
mkdir -p "$project"
printf '[project]\nname = "my-harness"\nversion = "0.1.0"\n' >"$project/pyproject.toml"
cd "$project"
"$python" -m venv .venv
if [[ -n $runner_wheel ]]; then
  .venv/bin/pip install --quiet --disable-pip-version-check --no-index --find-links "$files" \
    "harness-conformance==$version" "harness-conformance-adapter==$version"
  hc=.venv/bin/harness-conformance
else
  .venv/bin/pip install --quiet --disable-pip-version-check --no-index --find-links "$files" \
    "harness-conformance-adapter==$version"
  ln -s "$binary" .venv/bin/harness-conformance
  hc=.venv/bin/harness-conformance
fi
step "a venv with the runner and the kit, from files"

# --- 2. init ----------------------------------------------------------------------------------
"$hc" init >"$scratch/init.log" 2>&1 || { cat "$scratch/init.log" >&2; echo "newcomer: init failed" >&2; exit 1; }
for f in conformance/adapter.py conformance/baseline.json .github/workflows/harness-conformance.yml; do
  [[ -f $f ]] || { cat "$scratch/init.log" >&2; echo "newcomer: init did not write $f" >&2; exit 1; }
done
step "init: adapter, first baseline ($(grep -o '^[0-9]* cases: .*' "$scratch/init.log" | head -n 1)), CI job"

# --- 3. the CI job's gate, as the action runs it ----------------------------------------------
job=.github/workflows/harness-conformance.yml
adapter=$(sed -n 's/^ *adapter: //p' "$job")
baseline=$(sed -n 's/^ *baseline: //p' "$job")
tools=$scratch/tool-cache
if [[ -z $runner_wheel ]]; then
  mkdir -p "$tools/$version/bin"
  ln -s "$binary" "$tools/$version/bin/harness-conformance"
fi
gate() { # name: the action's three steps in a fresh GitHub output file; prints the run's status
  local out=$scratch/$1
  mkdir -p "$out"
  local env=(env -u VIRTUAL_ENV -u PYTHONPATH GATE_VERSION="$version" GATE_INSTALL_DIR="$tools"
    GATE_ADAPTER="$adapter" GATE_KIT=auto GATE_PACKAGES="$files" GITHUB_OUTPUT="$out/output"
    GITHUB_STEP_SUMMARY="$out/summary.md")
  "${env[@]}" "$python" "$root/ci/gate_action.py" resolve >"$out/log" 2>&1
  "${env[@]}" "$python" "$root/ci/gate_action.py" install >>"$out/log" 2>&1
  local binary_out kit_path
  binary_out=$(sed -n 's/^binary=//p' "$out/output" | tail -n 1)
  kit_path=$(sed -n 's/^kit-pythonpath=//p' "$out/output" | tail -n 1)
  local status=0
  "${env[@]}" HARNESS_CONFORMANCE="$binary_out" GATE_KIT_PYTHONPATH="$kit_path" GATE_BASELINE="$baseline" \
    GATE_REPORT_DIR="$out/reports" "$python" "$root/ci/gate_action.py" run >>"$out/log" 2>&1 || status=$?
  echo "$status"
}
"$python" -c 'import harness_conformance_adapter' 2>/dev/null \
  && { echo "newcomer: $python imports the kit already: the gate would not show that the action installs it" >&2; exit 1; }
status=$(gate green)
[[ $status == 0 ]] || { cat "$scratch/green/log" >&2; echo "newcomer: the gate is not green (exit $status)" >&2; exit 1; }
step "the CI job's gate, the kit installed by the action from files: green"

# --- 4. a deliberate break --------------------------------------------------------------------
"$python" - conformance/adapter.py <<'EOF'
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
broken = text.replace('return True, f"unknown tool {name!r}"', 'return False, "done"')
assert broken != text, "the toy's unknown-tool line is not in the adapter"
open(path, "w", encoding="utf-8").write(broken)
EOF
status=$(gate red)
[[ $status == 1 ]] || { cat "$scratch/red/log" >&2; echo "newcomer: the broken harness's gate exited $status, not 1" >&2; exit 1; }
grep -q '^::error title=FAIL [^:]*\[fails CALL-' "$scratch/red/log" \
  || { cat "$scratch/red/log" >&2; echo "newcomer: no annotation names the failing requirement" >&2; exit 1; }
step "the toy broken on purpose: the gate is red (exit 1), annotated with the failing requirement"
echo "newcomer: from an empty project to a green and then a red gate in $((SECONDS - start)) s"
