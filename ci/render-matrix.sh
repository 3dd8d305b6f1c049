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

# Each harness's report is made on its own (as each harness's CI would), then combined. The
# broken variant fails cases, so its run and the matrix exit 1; the site is what is checked.
"$bin/harness-conformance" run --run 'outcomes/*' -q --format json -o "$out/reports/reference.json" 2>/dev/null
"$bin/harness-conformance" run --harness "$bin/harness-ref-adapter --fault error-as-success" \
  --run 'outcomes/*' -q --format json -o "$out/reports/error-as-success.json" 2>/dev/null || true
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
dump() { # page.html dumped.html
  chrome --virtual-time-budget=2000 --dump-dom "file://$PWD/$1" >"$2"
  test -s "$2" || { echo "render-matrix: chromium dumped nothing for $1" >&2; exit 1; }
}
shoot() { # page.html shot.png
  chrome --window-size=1400,1000 --screenshot="$2" "file://$PWD/$1" >/dev/null
  test -s "$2" || { echo "render-matrix: chromium wrote no screenshot for $1" >&2; exit 1; }
}

dump "$out/small/index.html" "$out/small-index.dom.html"
python3 ci/check_site.py index "$out/small-index.dom.html" error-as-success reference
dump "$out/small/harness/error-as-success.html" "$out/small-harness.dom.html"
python3 ci/check_site.py harness "$out/small-harness.dom.html"
for b in "$out"/small/badges/*.json; do python3 ci/check_site.py badge "$b"; done
shoot "$out/small/index.html" "$out/small-index.png"
shoot "$out/small/harness/error-as-success.html" "$out/small-harness.png"

if [ -s target/matrix/site/index.html ]; then
  dump target/matrix/site/index.html "$out/real-index.dom.html"
  harnesses=$(cd target/matrix/site/harness && ls -- *.html | sed 's/\.html$//' | sort)
  # shellcheck disable=SC2086  # one argument per harness
  python3 ci/check_site.py index "$out/real-index.dom.html" $harnesses
  for h in $harnesses; do
    dump "target/matrix/site/harness/$h.html" "$out/real-$h.dom.html"
    python3 ci/check_site.py harness "$out/real-$h.dom.html"
  done
  shoot target/matrix/site/index.html "$out/real-index.png"
fi
echo "render-matrix: screenshots and dumped pages in $out/"
