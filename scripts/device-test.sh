#!/usr/bin/env bash
# On the GPU machine (no network; packages come from the image): build, run the tests, run the
# smoke suite on CUDA, check its statuses, and print a short table last.
# Usage: scripts/device-test.sh [OUTDIR]   (results and logs are written to OUTDIR, default /tmp)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${1:-${OUT:-/tmp}}"
BUILD="${KBENCH_BUILD_DIR:-$ROOT/build-device}"
PYTHON="${KBENCH_PYTHON:-$(command -v python3)}"
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1
status=0
step() { printf '\n=== %s\n' "$*"; }

step "environment"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader || true
"$PYTHON" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"

step "build"
start=$(date +%s)
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$PYTHON" \
  > "$OUTDIR/configure.log" 2>&1 || { tail -30 "$OUTDIR/configure.log"; exit 1; }
cmake --build "$BUILD" --parallel "$(nproc)" > "$OUTDIR/build.log" 2>&1 || { grep -E "error" -A3 "$OUTDIR/build.log" | head -60; exit 1; }
build_s=$(( $(date +%s) - start ))
echo "built in ${build_s} s"

step "tests (ctest; the CPU smoke run is left to CI)"
start=$(date +%s)
(cd "$BUILD" && ctest --output-on-failure --parallel 4 -E test_run_smoke) > "$OUTDIR/ctest.log" 2>&1
ctest_rc=$?
tests_s=$(( $(date +%s) - start ))
tail -15 "$OUTDIR/ctest.log"
[ $ctest_rc -eq 0 ] || status=1

step "smoke suite on cuda"
start=$(date +%s)
"$BUILD/bin/kbench" run "$ROOT/configs/suites/smoke.yaml" --device cuda -o "$OUTDIR/smoke-cuda.json" \
  > "$OUTDIR/smoke-cuda.txt" 2>&1
smoke_rc=$?
smoke_s=$(( $(date +%s) - start ))
tail -25 "$OUTDIR/smoke-cuda.txt"
[ $smoke_rc -eq 0 ] || status=1

step "checks"
"$PYTHON" - "$OUTDIR/smoke-cuda.json" <<'PY' || status=1
import json, sys
doc = json.load(open(sys.argv[1]))
bad = []
for r in doc["results"]:
    want = "mismatch" if r["candidate"].endswith("_wrong.py") else "ok"
    if r["status"] != want:
        bad.append(f'{r["problem"]}/{r["candidate"]}: {r["status"]} (want {want}): {r["message"][:200]}')
    if want == "ok" and r["status"] == "ok" and r["timings"]["candidate"]["timer"] != "cuda_event":
        bad.append(f'{r["candidate"]}: not timed with CUDA events')
print("\n".join(bad) if bad else f'all {len(doc["results"])} statuses as expected on {doc["environment"]["device_name"]}')
sys.exit(1 if bad else 0)
PY

step "summary"
printf '%-28s %s\n' "build" "${build_s} s"
printf '%-28s %s\n' "ctest (rc)" "$ctest_rc in ${tests_s} s"
printf '%-28s %s\n' "smoke on cuda (rc)" "$smoke_rc in ${smoke_s} s"
"$PYTHON" - "$OUTDIR/smoke-cuda.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
fmt = lambda t: "-" if not t else f'{t["median_ms"]*1000:9.1f}'
print(f'{"problem/candidate":44} {"status":9} {"cand us":>9} {"eager us":>9} {"ind us":>9} {"vs eag":>7} {"vs ind":>7}')
for r in doc["results"]:
    t = r["timings"]
    s = lambda k: "-" if r[k] is None else f'{r[k]:.2f}x'
    print(f'{r["problem"] + "/" + r["candidate"]:44.44} {r["status"]:9} {fmt(t["candidate"]):>9} {fmt(t["eager"]):>9} {fmt(t["inductor"]):>9} {s("speedup_vs_eager"):>7} {s("speedup_vs_inductor"):>7}')
m = doc["summary"]
print(f'pass@1 {m["pass_at_1"]:.3f}  beats_inductor {m["beats_inductor"]:.3f}  geomean vs inductor {m["geomean_speedup_vs_inductor"]}  vs eager {m["geomean_speedup_vs_eager"]}')
PY
echo "device-test: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
