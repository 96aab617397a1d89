#!/usr/bin/env bash
# The shared extension build cache (docs/extensions.md) on a CUDA suite: runs suite.yaml twice on
# a fresh cache and prints, per candidate, the build time and cache use of both runs, and both
# runs' wall times. The second run must load every extension from the cache (hit, no build).
# Usage: benchmarks/extension_cache/run.sh KBENCH_BINARY OUTDIR [cuda|cpu] [extra kbench args...]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KBENCH="$1" OUTDIR="$2" DEVICE="${3:-cuda}"
shift $(( $# < 3 ? $# : 3 ))
PYTHON="${KBENCH_PYTHON:-$(command -v python3)}"
mkdir -p "$OUTDIR"
export KBENCH_CACHE_DIR="$OUTDIR/extension-cache-root"
rm -rf "$KBENCH_CACHE_DIR"
walls=()
for run in 1 2; do
  start=$(date +%s.%N)
  "$KBENCH" run "$HERE/suite.yaml" --device "$DEVICE" -q -o "$OUTDIR/extension-cache-run$run.json" "$@" || true
  end=$(date +%s.%N)
  walls+=("$("$PYTHON" -c "print(round($end - $start, 1))")")
done
"$KBENCH" cache info --dir "$KBENCH_CACHE_DIR/extensions"
"$PYTHON" - "$OUTDIR/extension-cache-run1.json" "$OUTDIR/extension-cache-run2.json" "${walls[@]}" <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:3]]
walls = sys.argv[3:5]

def build(result):
    """(seconds spent building, loaded from, hit) of the candidate's extensions."""
    records = result.get("diagnostics", {}).get("extension_build") or []
    seconds = sum(r.get("build_s") or 0 for r in records if r.get("phase") == "prebuild")
    seconds += sum(r.get("build_s") or 0 for r in records if r.get("phase") == "import" and r.get("source") == "private")
    loads = [r for r in records if r.get("phase") == "import"]
    return seconds, ",".join(r.get("source", "?") for r in loads) or "-", bool(loads) and all(r.get("hit") for r in loads)

print(f'{"problem/candidate":48} {"status 1/2":17} {"build 1 s":>9} {"build 2 s":>9} {"from (run 2)":>12} {"wall 1":>7} {"wall 2":>7}')
bad = []
second = {(r["problem"], r["candidate"]): r for r in runs[1]["results"]}
for r1 in runs[0]["results"]:
    r2 = second.get((r1["problem"], r1["candidate"]))
    b1, _, _ = build(r1)
    b2, src2, hit2 = build(r2) if r2 else (0, "-", False)
    name = f'{r1["problem"]}/{r1["candidate"]}'
    print(f'{name:48.48} {r1["status"] + "/" + (r2["status"] if r2 else "-"):17} {b1:9.1f} {b2:9.1f} {src2:>12} '
          f'{r1["wall_s"]:7.1f} {(r2["wall_s"] if r2 else 0):7.1f}')
    if not r2 or not hit2 or b2 > 0: bad.append(f"{name}: run 2 was not served from the cache")
    if r1["status"] != "ok" or (r2 and r2["status"] != "ok"): bad.append(f"{name}: not ok")
print(f"whole run: first {walls[0]} s, second {walls[1]} s (fresh cache, then warm)")
print("\n".join(bad) if bad else "extension cache: every candidate of run 2 loaded from the cache, no build")
sys.exit(1 if bad else 0)
PY
