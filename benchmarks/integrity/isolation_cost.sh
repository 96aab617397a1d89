#!/usr/bin/env bash
# What placing every candidate apart costs (KBENCH_NATIVE_ISOLATION=all; why in
# docs/threat-model.md#raw-memory-from-pure-python): one suite run twice on one device, by default
# (only candidates the static analysis finds able to reach native code or raw memory are placed
# apart) and with every candidate in three processes. Prints each job's verdict, wall time and
# speedup vs eager side by side, then the totals.
#   benchmarks/integrity/isolation_cost.sh [SUITE.yaml] [cpu|cuda|auto]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
KBENCH="${KBENCH:-$ROOT/build/bin/kbench}"
SUITE="${1:-$ROOT/configs/suites/smoke.yaml}"
DEVICE="${2:-cpu}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
"$KBENCH" run "$SUITE" --device "$DEVICE" -q -o "$OUT/default.json" > "$OUT/default.txt" 2>&1 || { cat "$OUT/default.txt"; exit 1; }
KBENCH_NATIVE_ISOLATION=all "$KBENCH" run "$SUITE" --device "$DEVICE" -q -o "$OUT/all.json" > "$OUT/all.txt" 2>&1 \
  || { cat "$OUT/all.txt"; exit 1; }
python3 - "$OUT/default.json" "$OUT/all.json" <<'PY'
import json, statistics, sys

def load(path):
    return {f'{r["problem"]}/{r["candidate"]}': r for r in json.load(open(path))["results"]}

default, every = load(sys.argv[1]), load(sys.argv[2])
def speedup(r):
    s = (r.get("speedups") or {}).get("eager") or {}
    return f'{s["value"]:.2f}x' if s.get("value") else "-"
def mode(r):
    return ((r.get("diagnostics") or {}).get("isolation") or {}).get("mode", "one process")
print(f'{"job":48} {"default":>24} {"all apart":>24}')
walls = []
for key in sorted(default):
    a, b = default[key], every.get(key, {})
    walls.append((a.get("wall_s", 0), b.get("wall_s", 0)))
    print(f'{key[:48]:48} {a["status"]:>8} {a.get("wall_s", 0):6.1f} s {speedup(a):>7} '
          f'{b.get("status", "-"):>8} {b.get("wall_s", 0):6.1f} s {speedup(b):>7}  [{mode(a)} -> {mode(b)}]')
same = sum(default[k]["status"] == every.get(k, {}).get("status") for k in default)
d, e = [w[0] for w in walls], [w[1] for w in walls]
print(f'\njobs {len(walls)}, same verdict {same}/{len(walls)}; wall per job median {statistics.median(d):.1f} s -> '
      f'{statistics.median(e):.1f} s, total {sum(d):.0f} s -> {sum(e):.0f} s '
      f'(+{statistics.median([b - a for a, b in walls]):.1f} s a job, median)')
PY
