#!/usr/bin/env bash
# Installs the pinned harness of each named adapter (all of them when none is named).
#
#   conformance/adapters/install.sh [mcp-python|mcp-typescript|pydantic-ai|langgraph-default|langgraph-handle-errors ...]
#   conformance/adapters/install.sh [codex|claude-code|gemini-cli|opencode ...]   (coding agents: not in the default list)
#
# Python adapters get conformance/adapters/<name>/.venv from <name>/requirements.txt (every
# package pinned with ==); the TypeScript adapter gets node_modules from package-lock.json
# (`npm ci`). Both are ignored by git. Idempotent and fast when already installed: a stamp file
# records the hash of the pin file, and nothing is done while it matches.
# langgraph-handle-errors runs the same harness as langgraph-default and shares its venv.
# The coding agents (conformance/adapters/<agent>, driven over their wire) are npm packages of
# 100-400 MB each with a prebuilt binary inside; they install only when named, from the same
# package-lock.json stamp (npm's cache makes a reinstall fast).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3.11}
all=(mcp-python mcp-typescript pydantic-ai langgraph-default)

install_python() {
  local dir=$here/$1
  local stamp=$dir/.venv/.installed sum
  sum=$(sha256sum "$dir/requirements.txt" | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$sum" ]]; then
    echo "$1: up to date"
    return
  fi
  echo "$1: installing into $dir/.venv"
  rm -rf "$dir/.venv"
  "$python" -m venv "$dir/.venv"
  "$dir/.venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$dir/requirements.txt"
  "$dir/.venv/bin/pip" check --disable-pip-version-check >/dev/null
  echo "$sum" > "$stamp"
}

install_node() {
  local dir=$here/$1
  local stamp=$dir/node_modules/.installed sum
  sum=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$sum" ]]; then
    echo "$1: up to date"
    return
  fi
  echo "$1: npm ci in $dir"
  (cd "$dir" && npm ci --silent --no-audit --no-fund)
  echo "$sum" > "$stamp"
}

names=("$@")
[[ ${#names[@]} -eq 0 ]] && names=("${all[@]}")
for name in "${names[@]}"; do
  case $name in
    mcp-python | pydantic-ai | langgraph-default) install_python "$name" ;;
    langgraph-handle-errors) install_python langgraph-default ;;
    mcp-typescript | codex | claude-code | gemini-cli | opencode) install_node "$name" ;;
    template-python | template-typescript) echo "$name: standard library only, nothing to install" ;;
    *) echo "install.sh: unknown adapter $name" >&2; exit 2 ;;
  esac
done
