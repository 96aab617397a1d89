#!/usr/bin/env bash
# Renders the sample HTML report (tests/golden/report_sample.html, which test_reporters keeps
# equal to html_report(sample_report())) in headless Chromium and checks what a reader would
# see: three SVG charts with bars, a non-blank screenshot, no console errors.
# Usage: test_html_render.sh SOURCE_DIR PYTHON
set -euo pipefail
SOURCE_DIR="$1"
PYTHON="${2:-python3}"
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$CHROMIUM" ]; then
  echo "FAIL: chromium is not installed; run scripts/setup.sh (it installs the Debian package 'chromium')" >&2
  exit 1
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp "$SOURCE_DIR/tests/golden/report_sample.html" "$WORK/report.html"
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

"$PYTHON" - "$WORK/dom.html" "$WORK/shot.png" <<'PY'
import re, struct, sys, zlib

dom = open(sys.argv[1], encoding="utf-8").read()
charts = re.findall(r"<svg\b.*?</svg>", dom, re.S)
with_bars = [c for c in charts if "<rect" in c]
if len(with_bars) < 3:
    sys.exit(f"FAIL: the rendered DOM has {len(with_bars)} <svg> charts with <rect> bars; want 3+")

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
green = bytes((0x2d, 0xa4, 0x4e))  # the "faster" bars
if green not in colours:
    sys.exit(f"FAIL: no chart bar colour in the screenshot ({len(colours)} colours)")
print(f"ok: {len(with_bars)} charts with bars; screenshot {width}x{height}, {len(colours)} colours")
PY
