#!/usr/bin/env bash
# Installs the pinned harness of each named adapter, and the adapter kit it is built on (all of
# them when none is named).
#
#   conformance/adapters/install.sh [mcp-python|mcp-typescript|pydantic-ai|langgraph-default|
#                                    langgraph-handle-errors|template-python|template-typescript|
#                                    fastmcp|fastmcp-default|langchain-mcp-adapters|inspect-ai|
#                                    smolagents ...]
#   conformance/adapters/install.sh [codex|claude-code|gemini-cli|opencode ...]   (coding agents: not in the default list)
#   conformance/adapters/install.sh [qwen-code|cline|continue-cli|copilot ...]    (more coding agents, likewise)
#   conformance/adapters/install.sh uv        # only the pinned uv (ci/kits.sh uses it too)
#   conformance/adapters/install.sh [agent-framework|agent-framework-detailed-errors|semantic-kernel|
#                                    langgraph-js|langchain-js-agent|mastra ...]
#   conformance/adapters/install.sh [openai-agents|anthropic|google-genai|haystack|agno|ai|ai-strict ...]
#
# Python adapters get conformance/adapters/<name>/.venv from <name>/requirements.txt (every
# package pinned with ==), plus the Python kit (conformance/kits/python) installed from this
# checkout by path (it has no dependencies). Installs use uv (pinned below, itself installed from
# PyPI with pip into conformance/adapters/.tools): it resolves nothing (--no-deps, every pin
# exact) and fetches in parallel from its cache, so a venv takes seconds where pip took about
# 40 s (measured for pydantic-ai's 17 pins on the CI machine). TypeScript adapters get
# node_modules from their package-lock.json (`npm ci`); the TypeScript kit is a `file:` dependency
# (a link to conformance/kits/typescript), built here first with its own lock file. All of these
# are ignored by git. Idempotent and fast when already installed: a stamp file records the hash of
# the pin files and of the kit's sources, and nothing is done while it matches.
# langgraph-handle-errors runs the same harness as langgraph-default and shares its venv;
# fastmcp-default shares fastmcp's.
# google-adk-arg-validation runs the same harness as google-adk and shares its venv.
# agent-framework-detailed-errors shares agent-framework's venv; langchain-js-agent shares
# langgraph-js's node_modules; ai-strict shares ai's.
# The coding agents (conformance/adapters/<agent>, driven over their wire) are npm packages of
# 100-400 MB each with a prebuilt binary inside; they install only when named, from the same
# package-lock.json stamp (npm's cache makes a reinstall fast).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kits=$(cd "$here/../kits" && pwd)
python=${PYTHON:-python3.11}
uv_version=0.13.8
tools=$here/.tools
all=(mcp-python mcp-typescript pydantic-ai langgraph-default template-python template-typescript
  fastmcp langchain-mcp-adapters inspect-ai smolagents)
all+=(google-adk crewai strands-agents llama-index)
all+=(agent-framework semantic-kernel langgraph-js mastra)
all+=(openai-agents anthropic google-genai haystack agno ai)

# The hash of a set of files (sorted by path), for stamps.
tree_hash() {
  find "$@" -type f -not -path '*/__pycache__/*' -not -path '*/node_modules/*' -not -path '*/dist/*' -print0 |
    sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# uv, pinned, in a venv of its own (reinstalled when the pin changes).
ensure_uv() {
  if [[ -x $tools/bin/uv && $("$tools/bin/uv" --version) == "uv $uv_version"* ]]; then
    return
  fi
  echo "uv $uv_version: installing into $tools"
  rm -rf "$tools"
  "$python" -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "uv==$uv_version"
}

python_kit_hash() { tree_hash "$kits/python/src" "$kits/python/pyproject.toml" "$kits/python/README.md"; }

# A venv for an adapter: its pinned requirements (if any), then the kit from this checkout.
install_python() {
  local dir=$here/$1 requirements=$here/$1/requirements.txt
  local stamp=$dir/.venv/.installed sum
  sum=$( {
    if [[ -f $requirements ]]; then sha256sum "$requirements"; fi
    python_kit_hash
  } | sha256sum | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$sum" ]]; then
    echo "$1: up to date"
    return
  fi
  echo "$1: installing into $dir/.venv"
  ensure_uv
  rm -rf "$dir/.venv"
  "$tools/bin/uv" venv --quiet --python "$python" "$dir/.venv"
  local sources=("$kits/python")
  if [[ -f $requirements ]]; then
    sources=(-r "$requirements" "${sources[@]}")
  fi
  "$tools/bin/uv" pip install --quiet --python "$dir/.venv/bin/python" --no-deps "${sources[@]}"
  "$tools/bin/uv" pip check --quiet --python "$dir/.venv/bin/python"
  echo "$sum" > "$stamp"
}

# The TypeScript kit: its dev dependencies from its lock file, then `tsc` into dist/.
build_typescript_kit() {
  local dir=$kits/typescript sum
  sum=$(tree_hash "$dir/src" "$dir/package.json" "$dir/package-lock.json" "$dir/tsconfig.json")
  if [[ -f $dir/dist/.built && $(cat "$dir/dist/.built") == "$sum" ]]; then
    return
  fi
  echo "typescript kit: npm ci and build in $dir"
  (cd "$dir" && npm ci --silent --no-audit --no-fund && rm -rf dist && npx --no-install tsc -p tsconfig.json)
  echo "$sum" > "$dir/dist/.built"
}

install_node() {
  local dir=$here/$1
  build_typescript_kit
  local stamp=$dir/node_modules/.installed sum
  sum=$( {
    sha256sum "$dir/package-lock.json"
    if [[ -f $dir/tsconfig.json ]]; then tree_hash "$dir"/*.ts "$dir/tsconfig.json"; fi
  } | sha256sum | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$sum" ]]; then
    echo "$1: up to date"
    return
  fi
  echo "$1: npm ci in $dir"
  (cd "$dir" && npm ci --silent --no-audit --no-fund)
  if [[ -f $dir/tsconfig.json ]]; then
    (cd "$dir" && npx --no-install tsc -p tsconfig.json)
  fi
  echo "$sum" > "$stamp"
}

names=("$@")
[[ ${#names[@]} -eq 0 ]] && names=("${all[@]}")
for name in "${names[@]}"; do
  case $name in
    mcp-python | pydantic-ai | langgraph-default | template-python) install_python "$name" ;;
    google-adk | crewai | strands-agents | llama-index) install_python "$name" ;;
    google-adk-arg-validation) install_python google-adk ;;
    langgraph-handle-errors) install_python langgraph-default ;;
    fastmcp | langchain-mcp-adapters | inspect-ai | smolagents) install_python "$name" ;;
    fastmcp-default) install_python fastmcp ;;
    mcp-typescript | template-typescript | codex | claude-code | gemini-cli | opencode) install_node "$name" ;;
    qwen-code | cline | continue-cli | copilot) install_node "$name" ;;
    uv) ensure_uv ;;
    agent-framework | semantic-kernel) install_python "$name" ;;
    agent-framework-detailed-errors) install_python agent-framework ;;
    langgraph-js | mastra) install_node "$name" ;;
    langchain-js-agent) install_node langgraph-js ;;
    openai-agents | anthropic | google-genai | haystack | agno) install_python "$name" ;;
    ai) install_node "$name" ;;
    ai-strict) install_node ai ;;
    *) echo "install.sh: unknown adapter $name" >&2; exit 2 ;;
  esac
done
