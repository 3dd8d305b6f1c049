#!/usr/bin/env bash
# Captures a terminal run for docs/terminal.md: runs the suite in a detached tmux pane (a real
# terminal: colour, the progress bar), saves the pane with its styles (`capture-pane -e -p`) as
# docs/terminal/*.ansi, and renders each capture to a PNG in headless Chromium (the `chromium`
# that ci/render-matrix.sh installs). Not part of .ci/run: rerun it by hand when the terminal
# output changes.
#
#   ci/terminal-capture.sh            (uses target/debug/harness-conformance)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${HARNESS_CONFORMANCE:-$PWD/target/debug/harness-conformance}
out=$PWD/docs/terminal
mkdir -p "$out"
toy="python3 conformance/driver/tests/misbehaving/adapter.py ok"
session=hc-capture-$$
trap 'tmux kill-session -t "$session-bar" 2>/dev/null || true; tmux kill-session -t "$session" 2>/dev/null || true' EXIT
# The bar, part-way through the whole suite against the built-in reference harness.
tmux new-session -d -s "$session-bar" -x 160 -y 12 "$bin run; sleep 600"
for _ in $(seq 1 100); do
  sleep 0.2
  tmux capture-pane -e -p -t "$session-bar" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$out/progress.ansi"
  grep -q ' cases .*ETA' "$out/progress.ansi" && grep -q '[1-9][0-9]* PASS' "$out/progress.ansi" && break
done
tmux kill-session -t "$session-bar"
# A whole report of a harness that fails (a toy adapter that answers "ok" to everything).
tmux new-session -d -s "$session" -x 200 -y 60 \
  "$bin run --run 'cap/*,calls/*,outcomes/*' --harness '$toy'; sleep 600"
for _ in $(seq 1 240); do
  tmux capture-pane -p -S - -t "$session" | grep -q '^result: ' && break
  sleep 1
done
tmux capture-pane -e -p -S - -t "$session" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$out/run.ansi"

render() { # capture.ansi page.png: the capture as HTML (ANSI SGR to spans), then a screenshot
  python3 - "$1" "${1%.ansi}.html" <<'PY'
import html, re, sys
colours = {30: "#000", 31: "#e06c75", 32: "#98c379", 33: "#e5c07b", 34: "#61afef",
           35: "#c678dd", 36: "#56b6c2", 37: "#dcdfe4"}
text = open(sys.argv[1], encoding="utf-8").read()
out, style = [], {}
def span(chunk):
    if not chunk:
        return ""
    css = ";".join(f"{k}:{v}" for k, v in style.items())
    return f'<span style="{css}">{html.escape(chunk)}</span>' if css else html.escape(chunk)
pos = 0
for m in re.finditer(r"\x1b\[([0-9;]*)m", text):
    out.append(span(text[pos:m.start()]))
    pos = m.end()
    for code in [int(c) for c in (m.group(1) or "0").split(";") if c]:
        if code == 0:
            style = {}
        elif code == 1:
            style["font-weight"] = "bold"
        elif code == 2:
            style["opacity"] = "0.6"
        elif code in colours:
            style["color"] = colours[code]
        elif code == 39:
            style.pop("color", None)
out.append(span(text[pos:]))
lines = text.count("\n") + 1
open(sys.argv[2], "w", encoding="utf-8").write(
    "<!doctype html><meta charset=utf-8><body style='margin:0;background:#282c34'>"
    "<pre style='margin:0;padding:12px;color:#dcdfe4;font:13px/1.35 DejaVu Sans Mono,monospace'>"
    + "".join(out) + "</pre>")
print(lines)
PY
}
for capture in "$out"/progress.ansi "$out"/run.ansi; do
  lines=$(render "$capture")
  height=$((lines * 18 + 30))
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --hide-scrollbars --window-size=1600,"$height" \
    --screenshot="${capture%.ansi}.png" "file://${capture%.ansi}.html" >/dev/null 2>&1
  rm -f "${capture%.ansi}.html"
  test -s "${capture%.ansi}.png" || { echo "terminal-capture: no screenshot for $capture" >&2; exit 1; }
done
echo "terminal-capture: $(ls "$out")"
