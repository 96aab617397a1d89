#!/usr/bin/env bash
# Harness overhead per candidate: runs N copies of one honest Triton candidate on one small
# problem and reports, per job, the wall time the controller saw, the worker's start-up (Python,
# torch and triton imports) and its evaluation (compile and device work), and their difference.
# Usage: benchmarks/harness_overhead/run.sh KBENCH_BINARY OUTDIR [cpu|cuda] [N] [extra kbench args...]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
KBENCH="$1" OUTDIR="$2" DEVICE="${3:-cpu}" N="${4:-20}"
shift $(( $# < 4 ? $# : 4 ))
PYTHON="${KBENCH_PYTHON:-$(command -v python3)}"
mkdir -p "$OUTDIR/overhead-candidates"
for i in $(seq -w 1 "$N"); do
  cp "$ROOT/benchmarks/solutions/smoke/01_leaky_relu_scale_triton.py" \
     "$OUTDIR/overhead-candidates/copy_$i.py"
done
SUITE="$OUTDIR/overhead-suite.yaml"
cat > "$SUITE" <<YAML
schema_version: 1
suite: harness-overhead
defaults:
  seeds: 3
  baselines: [eager]
  timing: {max_time_s: 0.2, min_samples: 5}
problems:
  - id: leaky_relu_scale
    file: $ROOT/benchmarks/problems/smoke/01_leaky_relu_scale.py
    sizes: {cpu: {BATCH: 16, DIM: 1000}}
    candidates: $OUTDIR/overhead-candidates/copy_*.py
YAML
start=$(date +%s.%N)
"$KBENCH" run "$SUITE" --device "$DEVICE" -q -o "$OUTDIR/overhead.json" "$@"
end=$(date +%s.%N)
"$PYTHON" "$HERE/overhead_report.py" "$OUTDIR/overhead.json" "$("$PYTHON" -c "print($end - $start)")"
