#!/usr/bin/env bash
# A/A timing benchmark (issue #3): every problem of the shipped suites timed against itself
# (benchmarks/timing/reference_as_candidate.py vs eager), once with kbench's protocol and once
# with KernelBench's protocol reimplemented (--timing-mode kernelbench), in one run.
# Usage: benchmarks/timing/aa_benchmark.sh KBENCH OUTDIR [DEVICE] [SUITE...]
# KBENCH_AA_PROTOCOLS (default "cold kernelbench") picks the protocols: "cold" alone is the
# figure the integrity work must keep within 0.1 pp (issue #20), at half the device time.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KBENCH="$1"; OUTDIR="$2"; DEVICE="${3:-auto}"; shift 3 || shift $#
SUITES=("$@"); [ ${#SUITES[@]} -gt 0 ] || SUITES=(smoke level1)
mkdir -p "$OUTDIR"
for suite in "${SUITES[@]}"; do
  for protocol in ${KBENCH_AA_PROTOCOLS:-cold kernelbench}; do
    # --checks minimal: the A/A candidate *is* the reference (reference_called) and is no custom
    # kernel; only the timing is under test here. KBENCH_AA_CHECKS=standard runs it with the
    # checks around every timed call (timed_call_check, poisoning), to show they do not move A/A.
    "$KBENCH" run "$ROOT/configs/suites/$suite.yaml" --device "$DEVICE" -q --checks "${KBENCH_AA_CHECKS:-minimal}" \
      --candidates "$ROOT/benchmarks/timing/reference_as_candidate.py" --baselines eager \
      --timing-mode "$protocol" -o "$OUTDIR/aa-$suite-$protocol.json" > "$OUTDIR/aa-$suite-$protocol.txt" 2>&1 \
      || { echo "aa: $suite/$protocol failed"; tail -5 "$OUTDIR/aa-$suite-$protocol.txt"; }
  done
done
python3 "$ROOT/benchmarks/timing/aa_report.py" "$OUTDIR"/aa-*.json
