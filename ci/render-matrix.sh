#!/usr/bin/env bash
# Renders the matrix site in headless Chromium (Debian's `chromium`, installed here when missing)
# and checks what Chromium rendered: DOM assertions on the dumped page (`--dump-dom`, after the
# page's script ran; ci/check_site.py), a screenshot of each page for people to look at, and the
# badges. It checks (1) a small site of the reference beside a broken variant, built from saved
# reports with `matrix --from` (run once, render many), and (2) the real-harness site that
# ci/adapters.sh wrote, when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/matrix-render
rm -rf "$out"
mkdir -p "$out/reports"

if ! command -v chromium >/dev/null 2>&1; then
  echo "render-matrix: installing chromium (Debian package)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

cargo build --locked --release -q -p harness-conformance -p harness-ref-adapter
bin=target/release

# Each harness's report is made on its own (as each harness's CI would), then combined: the
# reference; a broken variant twice, as one harness's history (a folder of its runs: an older
# run with no baseline, then one gated by the baseline it wrote, so its failures are baselined
# and the grid must still show them as failures); and an adapter whose hello and messages are
# hostile HTML (every page must stay script-safe). Failing runs exit 1; the site is what is
# checked. SOURCE_DATE_EPOCH dates the older run.
broken="$bin/harness-ref-adapter --fault error-as-success"
hostile="python3 conformance/driver/tests/misbehaving/adapter.py hostile-html"
mkdir -p "$out/reports/error-as-success"
"$bin/harness-conformance" run --run 'outcomes/*' -q --format json -o "$out/reports/reference.json" 2>/dev/null
SOURCE_DATE_EPOCH=1764547200 "$bin/harness-conformance" run --harness "$broken" --run 'outcomes/*' -q \
  --format json -o "$out/reports/error-as-success/1-older.json" 2>/dev/null || true
"$bin/harness-conformance" run --harness "$broken" --run 'outcomes/*' -q \
  --write-baseline "$out/baseline.json" >/dev/null 2>&1 || true
"$bin/harness-conformance" run --harness "$broken" --baseline "$out/baseline.json" --run 'outcomes/*' -q \
  --format json -o "$out/reports/error-as-success/2-newer.json" 2>/dev/null
"$bin/harness-conformance" run --harness "$hostile" --run 'outcomes/*' -q --format json \
  -o "$out/reports/hostile.json" 2>/dev/null || true
"$bin/harness-conformance" matrix --from "$out/reports" --site "$out/small" \
  --markdown "$out/small.md" 2>/dev/null || true
test -s "$out/small/index.html" || { echo "render-matrix: matrix wrote no site" >&2; exit 1; }

chrome() {
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars "$@" 2>/dev/null
  rm -rf "$profile"
}
shoot() { # page.html shot.png
  chrome --window-size=1400,1000 --screenshot="$2" "file://$PWD/$1" >/dev/null
  test -s "$2" || { echo "render-matrix: chromium wrote no screenshot for $1" >&2; exit 1; }
}

dump() { # page[?query] dumped.html
  chrome --virtual-time-budget=3000 --dump-dom "file://$PWD/$1" >"$2"
  test -s "$2" || { echo "render-matrix: chromium dumped nothing for $1" >&2; exit 1; }
}
small="error-as-success hostile reference"
check() { python3 ci/check_site.py "$@"; }
dump "$out/small/index.html" "$out/small-index.dom.html"
# shellcheck disable=SC2086  # one argument per harness
check index "$out/small-index.dom.html" --baselined error-as-success $small
dump "$out/small/index.html?all=1" "$out/small-opened.dom.html"
# shellcheck disable=SC2086
check index "$out/small-opened.dom.html" --opened $small
dump "$out/small/index.html?area=OUT&lang=rust" "$out/small-filtered.dom.html"
# shellcheck disable=SC2086
check index "$out/small-filtered.dom.html" --area OUT --lang rust $small
# The report viewer: a reader chooses the broken variant's saved report; it must be shown as a
# row and a column that say what the published ones say for that run.
python3 ci/site_viewer.py "$out/small/index.html" "$out/reports/error-as-success/2-newer.json" \
  "$out/small-viewer.dom.html"
# shellcheck disable=SC2086
check index "$out/small-viewer.dom.html" --viewer error-as-success $small
dump "$out/small/harness/error-as-success.html" "$out/small-harness.dom.html"
check harness "$out/small-harness.dom.html" --history
dump "$out/small/harness/error-as-success.1.html" "$out/small-harness-older.dom.html"
# The older run had no baseline: its page lists every failure, in plain words.
check harness "$out/small-harness-older.dom.html" --earlier --failures
for h in hostile reference; do
  dump "$out/small/harness/$h.html" "$out/small-$h.dom.html"
  check harness "$out/small-$h.dom.html"
done
# One harness's page on its own (`report --format html`, a saved report read back): not
# published, so its reproducers keep the run's own command; no badges, no site around it.
"$bin/harness-conformance" report "$out/reports/error-as-success/1-older.json" --format html \
  -o "$out/standalone.html"
dump "$out/standalone.html" "$out/standalone.dom.html"
check harness "$out/standalone.dom.html" --standalone --failures
for b in "$out"/small/badges/*.json; do check badge "$b"; done
check size "$out/small"
shoot "$out/small/index.html" "$out/small-index.png"
shoot "$out/small/harness/error-as-success.html" "$out/small-harness.png"

if [ -s target/matrix/site/index.html ]; then
  dump target/matrix/site/index.html "$out/real-index.dom.html"
  # A harness's page is harness/<slug>.html; harness/<slug>.<n>.html are its earlier runs.
  harnesses=$(cd target/matrix/site/harness && ls -- *.html | sed 's/\.html$//' | grep -v '\.[0-9]*$' | sort)
  # shellcheck disable=SC2086  # one argument per harness
  check index "$out/real-index.dom.html" $harnesses
  for h in $harnesses; do
    dump "target/matrix/site/harness/$h.html" "$out/real-$h.dom.html"
    check harness "$out/real-$h.dom.html"
  done
  check size target/matrix/site
  shoot target/matrix/site/index.html "$out/real-index.png"
fi
echo "render-matrix: screenshots and dumped pages in $out/"
