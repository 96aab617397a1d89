#!/usr/bin/env bash
# Throughput of kbench's scheduling (issue #4): the smoke suite's Triton candidates, each copied
# COPIES times (6 x 4 = 24 jobs by default), run with 1 worker slot and with SLOTS slots; prints
# both wall times, the ratio, and whether the statuses agree.
# Usage: benchmarks/throughput/throughput.sh KBENCH OUTDIR [DEVICE] [SLOTS] [EXTRA KBENCH ARGS...]
#   DEVICE: auto (default), cpu, cuda, cuda:N. SLOTS: default 2.
#   DEVICE=gpus: one GPU (--device cuda:0) against every visible GPU (--device cuda), each with
#   its default slots (2 per GPU); SLOTS is then ignored.
#   COPIES (env): copies per candidate, default 4.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KBENCH="$1"; OUTDIR="$(mkdir -p "$2" && cd "$2" && pwd)"; DEVICE="${3:-auto}"; SLOTS="${4:-2}"
shift $(( $# < 4 ? $# : 4 ))
COPIES="${COPIES:-4}"

# A suite of the smoke problems with COPIES copies of each Triton candidate.
SUITE="$OUTDIR/throughput.yaml"
{
  echo "schema_version: 1"
  echo "suite: throughput"
  echo "defaults: {dtype: float32, seeds: 3, baselines: [eager, inductor], timeout_s: 600}"
  echo "problems:"
} > "$SUITE"
python3 - "$ROOT/configs/suites/smoke.yaml" >> "$SUITE" <<'PY' || exit 2
import json, sys, yaml
suite = yaml.safe_load(open(sys.argv[1]))
for p in suite["problems"]:
    print(f"  - id: {p['id']}")
    print(f"    file: {p['file'].replace('../../', '__ROOT__/')}")
    for key in ("level", "tags", "sizes", "overrides"):  # everything but the candidates
        if key in p:
            print(f"    {key}: {json.dumps(p[key])}")  # JSON is YAML flow style
    print(f"    candidates: candidates/{p['id']}/*.py")
PY
sed -i "s|__ROOT__|$ROOT|" "$SUITE"
for solution in "$ROOT"/benchmarks/solutions/smoke/*_triton.py; do
  id="$(basename "$solution" _triton.py)"
  mkdir -p "$OUTDIR/candidates/$id"
  for i in $(seq 1 "$COPIES"); do cp "$solution" "$OUTDIR/candidates/$id/copy_$i.py"; done
done
JOBS=$(ls "$OUTDIR"/candidates/*/*.py | wc -l)

run() {  # run LABEL SLOTS [EXTRA...]
  local label="$1" slots="$2" start end rc
  shift 2
  local where=(--device "$DEVICE" --jobs "$slots")
  if [ "$DEVICE" = gpus ]; then
    if [ "$label" = one ]; then where=(--device cuda:0); else where=(--device cuda); fi
  fi
  start=$(date +%s.%N)
  "$KBENCH" run "$SUITE" "${where[@]}" -q -o "$OUTDIR/$label.json" "$@" \
    > "$OUTDIR/$label.txt" 2>&1
  rc=$?
  end=$(date +%s.%N)
  python3 -c "print($end - $start)" > "$OUTDIR/$label.wall"
  [ $rc -eq 0 ] || { echo "throughput: the $label run failed (exit $rc)"; tail -5 "$OUTDIR/$label.txt"; exit 1; }
}
EXTRA=("$@")
run one 1 "${EXTRA[@]}"
run many "$SLOTS" "${EXTRA[@]}"

python3 - "$OUTDIR" "$JOBS" "$SLOTS" "$DEVICE" <<'PY'
import json, sys
out, jobs, slots, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
walls = {k: float(open(f"{out}/{k}.wall").read()) for k in ("one", "many")}
res = {k: json.load(open(f"{out}/{k}.json")) for k in ("one", "many")}
status = {k: [(r["problem"], r["candidate"], r["status"]) for r in v["results"]] for k, v in res.items()}
used = {k: sorted({r["schedule"]["device"] for r in v["results"] if r.get("schedule")}) for k, v in res.items()}
print(f"device {res['one']['device']} ({res['one']['environment'].get('device_name', '?')}), {jobs} jobs")
if mode == "gpus":
    print(f"one GPU  {used['one']}: {walls['one']:8.1f} s")
    print(f"all GPUs {used['many']}: {walls['many']:8.1f} s   throughput x{walls['one'] / walls['many']:.2f}")
else:
    print(f"1 slot:  {walls['one']:8.1f} s")
    print(f"{slots} slots: {walls['many']:8.1f} s   throughput x{walls['one'] / walls['many']:.2f}")
waits = [r["protocol"].get("gpu_lock_wait_s") for r in res["many"]["results"]]
waits = [w for w in waits if w is not None]
if waits:
    print(f"GPU lock wait with {slots} slots: mean {sum(waits) / len(waits):.1f} s, max {max(waits):.1f} s per job")
print("statuses agree" if status["one"] == status["many"] else "STATUSES DIFFER")
PY
