#!/usr/bin/env bash
# Renders the cross-harness matrix page in headless Chromium (Debian's `chromium`, installed here
# when missing) and checks the screenshot: the grid must show its pass and fail colours. It renders
# (1) a small matrix of the reference beside a broken variant, which must show both colours, and
# (2) the real-harness matrix that ci/adapters.sh wrote, when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/matrix-render
mkdir -p "$out"

if ! command -v chromium >/dev/null 2>&1; then
  echo "render-matrix: installing chromium (Debian package)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

cargo build --locked --release -q -p harness-conformance -p harness-ref-adapter
bin=target/release

# The broken variant fails cases, so matrix exits non-zero; the page is what is checked here.
"$bin/harness-conformance" matrix \
  --harness reference=reference \
  --harness "error-as-success=$bin/harness-ref-adapter --fault error-as-success" \
  --run 'outcomes/*' --markdown "$out/small.md" --html "$out/small.html" >/dev/null 2>&1 || true
test -s "$out/small.html" || { echo "render-matrix: matrix wrote no HTML" >&2; exit 1; }

shoot() { # html png
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size=1400,1800 \
    --screenshot="$2" "file://$PWD/$1" >/dev/null 2>&1
  rm -rf "$profile"
  test -s "$2" || { echo "render-matrix: chromium wrote no screenshot for $1" >&2; exit 1; }
}

shoot "$out/small.html" "$out/small.png"
python3 ci/check_png.py "$out/small.png" 2000 dafbe1=pass ffd8d3=fail

if [ -s target/matrix/matrix.html ]; then
  shoot target/matrix/matrix.html "$out/real-harnesses.png"
  # Real harnesses' known failures are baselined (XFAIL); passes must show too.
  python3 ci/check_png.py "$out/real-harnesses.png" 2000 dafbe1=pass fff1c2=xfail
fi
echo "render-matrix: screenshots in $out/"
