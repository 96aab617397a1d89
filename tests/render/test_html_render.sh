#!/usr/bin/env bash
# Renders the sample HTML report (tests/golden/report_sample.html, which test_reporters keeps
# equal to html_report(sample_report())) in headless Chromium and checks what a reader would
# see: three SVG charts with bars, a non-blank screenshot, no console errors.
# With HTML_FILE and "trend": the `kbench history trend` page that test_history wrote instead:
# 5 line charts (pass@1, speedups, 3 problems), the change points drawn in red.
# Usage: test_html_render.sh SOURCE_DIR PYTHON [HTML_FILE trend]
set -euo pipefail
SOURCE_DIR="$1"
PYTHON="${2:-python3}"
PAGE="${3:-$SOURCE_DIR/tests/golden/report_sample.html}"
KIND="${4:-report}"
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$CHROMIUM" ]; then
  echo "FAIL: chromium is not installed; run scripts/setup.sh (it installs the Debian package 'chromium')" >&2
  exit 1
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp "$PAGE" "$WORK/report.html"
URL="file://$WORK/report.html"
FLAGS=(--headless --no-sandbox --disable-gpu --user-data-dir="$WORK/profile" --enable-logging=stderr --v=0)

timeout 120 "$CHROMIUM" "${FLAGS[@]}" --screenshot="$WORK/shot.png" --window-size=1200,1600 "$URL" \
  >"$WORK/shot.out" 2>"$WORK/shot.err" || { cat "$WORK/shot.err" >&2; echo "FAIL: chromium --screenshot" >&2; exit 1; }
timeout 120 "$CHROMIUM" "${FLAGS[@]}" --dump-dom "$URL" >"$WORK/dom.html" 2>"$WORK/dom.err" ||
  { cat "$WORK/dom.err" >&2; echo "FAIL: chromium --dump-dom" >&2; exit 1; }

if grep -E "Uncaught|ERROR:CONSOLE" "$WORK/shot.err" "$WORK/dom.err"; then
  echo "FAIL: the page logged console errors (above)" >&2
  exit 1
fi

"$PYTHON" - "$WORK/dom.html" "$WORK/shot.png" "$KIND" <<'PY'
import re, struct, sys, zlib

dom = open(sys.argv[1], encoding="utf-8").read()
trend = sys.argv[3] == "trend"
charts = re.findall(r"<svg\b.*?</svg>", dom, re.S)
if trend:
    with_bars = [c for c in charts if "<polyline" in c and "<circle" in c]
    want = ['aria-label="pass@1"', 'aria-label="geomean speedup (correct candidates)"',
            'aria-label="p1: candidate time"', 'aria-label="p2: candidate time"', 'aria-label="p3: candidate time"']
    missing = [w for w in want if not any(w in c for c in with_bars)]
    if missing:
        sys.exit(f"FAIL: the rendered trend page lacks the line charts {missing}")
    p2 = next(c for c in charts if 'aria-label="p2: candidate time"' in c)
    if 'class="change-point"' not in p2:
        sys.exit("FAIL: the planted slowdown of p2 is not marked as a change point")
elif len([c for c in charts if "<rect" in c]) < 3:
    sys.exit(f"FAIL: the rendered DOM has too few <svg> charts with <rect> bars; want 3+")
else:
    with_bars = [c for c in charts if "<rect" in c]

# Decode the PNG (8-bit RGB/RGBA, not interlaced: what Chromium writes) with zlib only.
data = open(sys.argv[2], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("FAIL: the screenshot is not a PNG")
pos, idat, header = 8, b"", None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
width, height, depth, colour, _, _, interlace = header
if depth != 8 or colour not in (2, 6) or interlace:
    sys.exit(f"FAIL: unexpected PNG format {header}")
bpp = 3 if colour == 2 else 4
raw, stride = zlib.decompress(idat), width * bpp
prev, colours, pos = bytearray(stride), set(), 0
for _ in range(height):
    kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
    pos += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if kind == 1: line[i] = (line[i] + a) & 255
        elif kind == 2: line[i] = (line[i] + b) & 255
        elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 4))
    prev = line
if len(colours) < 2:
    sys.exit("FAIL: the screenshot is blank (one colour)")
# The "faster" bars of the report; the change-point rings of the trend page.
want = bytes((0xcf, 0x22, 0x2e)) if trend else bytes((0x2d, 0xa4, 0x4e))
if want not in colours:
    sys.exit(f"FAIL: no {'change-point' if trend else 'chart bar'} colour in the screenshot ({len(colours)} colours)")
print(f"ok: {len(with_bars)} charts with bars; screenshot {width}x{height}, {len(colours)} colours")
PY
