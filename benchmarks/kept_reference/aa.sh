#!/usr/bin/env bash
# A/A with kept reference work against the full protocol (issue #14; docs/timing.md#kept-
# reference-work). Every problem gets COPIES identical A/A candidates (its reference with Model
# renamed ModelNew); the same candidates run twice, `--keep-reference on` and `off`, and
# aa_compare.py prints |speedup_kept - speedup_full| per problem (target: within 1%), how many
# jobs kept their baselines, and the time the kept jobs saved.
# Problems: the first SMOKE_PROBLEMS of the smoke suite (eager and Inductor baselines), then the
# first KB_PROBLEMS level-1 problems of the KernelBench checkout in KB_DIR when it exists (eager
# only, as aa_run.sh).
# Usage: benchmarks/kept_reference/aa.sh KBENCH OUT
# Env: DEVICE (default cuda), COPIES (default 3), SMOKE_PROBLEMS (default 3; 6 is all),
# KB_DIR (default .kb), KB_PROBLEMS (default 3).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 KBENCH OUT" >&2; exit 2; }
KBENCH="$1"; OUT="$2"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
DEVICE="${DEVICE:-cuda}"
COPIES="${COPIES:-3}"
KB="${KB_DIR:-$ROOT/.kb}"

# One suite, both ways. $1: name, $2: suite file, $3: selection options (list and run, word-split),
# $4: further `kbench run` options (word-split).
aa_pair() {
  local name="$1" suite="$2" selection="$3" run_options="$4"
  local dir="$OUT/$name"
  mkdir -p "$dir/aa"
  # shellcheck disable=SC2086
  "$KBENCH" list "$suite" --json $selection > "$dir/problems.json"
  python3 "$ROOT/benchmarks/kept_reference/make_copies.py" "$dir/problems.json" "$dir/aa" "$COPIES"
  for mode in on off; do
    local start=$SECONDS
    "$KBENCH" run "$suite" --device "$DEVICE" --checks minimal --candidates "$dir/aa/{id}_aa*.py" \
      --keep-reference "$mode" --work-dir "$dir/work-$mode" -o "$dir/keep-$mode.json" $selection $run_options \
      > "$dir/run-$mode.txt" 2>&1 || { echo "kept_reference/aa: $name keep-reference $mode exited $?"; tail -20 "$dir/run-$mode.txt"; }
    echo "kept_reference/aa: $name --keep-reference $mode: $((SECONDS - start)) s"
  done
  python3 "$ROOT/benchmarks/kept_reference/aa_compare.py" "$dir/keep-on.json" "$dir/keep-off.json" "$name"
}

status=0
aa_pair smoke "$ROOT/configs/suites/smoke.yaml" "--limit ${SMOKE_PROBLEMS:-3}" "" || status=1
if [ -d "$KB/KernelBench" ]; then
  "$KBENCH" import kernelbench "$KB" --levels 1 --candidates "$OUT/kb/aa/{id}_aa*.py" -o "$OUT/kb-level1.yaml" --force >/dev/null
  aa_pair kb "$OUT/kb-level1.yaml" "--limit ${KB_PROBLEMS:-3}" "--baselines eager" || status=1
else
  echo "kept_reference/aa: no KernelBench checkout in $KB (set KB_DIR): smoke suite only"
fi
exit $status
