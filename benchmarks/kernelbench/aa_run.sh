#!/usr/bin/env bash
# A/A over KernelBench as it is (issue #13): import levels 1-3 of an unmodified checkout, make
# each problem's A/A candidate (a copy of its reference with the class renamed ModelNew, written
# under OUT, never into the checkout), run them against eager at --checks minimal, then print
# the statuses and the A/A precision table.
# Usage: benchmarks/kernelbench/aa_run.sh KB_DIR OUT [more `kbench run` options, e.g. --limit 10]
# Env: KBENCH (default build/bin/kbench of this checkout), DEVICE (default auto), SUBSET (default
# all: failed44, biggest:N or memory, see select_problems.py), PYTHON (for sizing the biggest
# problems on torch's meta device; default the venv of scripts/setup.sh, else python3),
# RUN_TIMEOUT_S (stop scheduling after this many seconds, like a first Ctrl-C: what finished is
# reported, with complete=false).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KBENCH="${KBENCH:-$ROOT/build/bin/kbench}"
[ $# -ge 2 ] || { echo "usage: $0 KB_DIR OUT [kbench run options...]" >&2; exit 2; }
KB_DIR="$1"; OUT="$2"; shift 2
mkdir -p "$OUT/aa"
OUT="$(cd "$OUT" && pwd)"

# The suite: candidates are OUT/aa/<id>.py (absolute pattern, so the suite works from anywhere).
"$KBENCH" import kernelbench "$KB_DIR" --levels 1,2,3 --candidates "$OUT/aa/{id}.py" \
  -o "$OUT/kernelbench-aa.yaml" --force
# The A/A candidates, from the problem files the suite names.
"$KBENCH" list "$OUT/kernelbench-aa.yaml" --json > "$OUT/problems.json"
python3 "$ROOT/benchmarks/kernelbench/make_aa_candidates.py" "$OUT/problems.json" "$OUT/aa"
# A named subset: one --problems per id.
PYTHON="${PYTHON:-$HOME/.cache/kbench/venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
selection=()
while read -r id; do [ -n "$id" ] && selection+=(--problems "$id"); done \
  < <("$PYTHON" "$ROOT/benchmarks/kernelbench/select_problems.py" "$OUT/problems.json" "${SUBSET:-all}")
[ "${SUBSET:-all}" = all ] || echo "aa_run: subset ${SUBSET}: $((${#selection[@]} / 2)) problems"

start=$(date +%s)
# --checks minimal: the A/A candidate *is* the reference (no custom kernel, reference code
# called); only the run itself and the timing are under test. Exit 0 even when jobs fail.
${RUN_TIMEOUT_S:+timeout -k 90 "$RUN_TIMEOUT_S"} "$KBENCH" run "$OUT/kernelbench-aa.yaml" --device "${DEVICE:-auto}" --checks minimal \
  --baselines eager -o "$OUT/aa.json" --md "$OUT/aa.md" ${selection[@]+"${selection[@]}"} "$@" > "$OUT/run.txt" 2>&1 \
  || { echo "aa_run: kbench run exited $?"; tail -20 "$OUT/run.txt"; }
end=$(date +%s)
echo "aa_run: wall time of the whole run: $((end - start)) s"
[ -f "$OUT/aa.json" ] || { echo "aa_run: no results file (a --dry-run?)"; exit 0; }
python3 "$ROOT/benchmarks/kernelbench/aa_summary.py" "$OUT/aa.json"
python3 "$ROOT/benchmarks/timing/aa_report.py" "$OUT/aa.json" | grep -v '^skipped '
