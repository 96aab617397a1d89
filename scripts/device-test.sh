#!/usr/bin/env bash
# On the GPU machine (no network; packages come from the image): build, run the tests, run the
# smoke suite on CUDA, check its statuses, and print a short table last.
# Usage: scripts/device-test.sh [OUTDIR]   (results and logs are written to OUTDIR, default /tmp)
# KBENCH_DEVICE_STAGES selects stages (default: tests,smoke,timing,integrity,faults,overhead,bench;
# also falsepos, buildcache, hashing, cudalaunch, honest, original, kbmemory (full-size KernelBench from KB_DIR,
# default .kb: SUBSET=memory of benchmarks/kernelbench/aa_run.sh, docs/memory.md), keptaa (kept
# reference work against the full protocol, A/A: benchmarks/kept_reference/aa.sh), python (the
# `kbench` module over the smoke suite), throughput1 (issue #14's RL batch: the Evaluator with the
# rl preset, kbench run with the defaults, KernelBench's evaluator from KB_DIR; ~400 s), and
# throughput for a machine with several GPUs); the build always
# runs first (a no-op when up to date). Each device call is capped at 10 minutes, so a full
# pass may be split: e.g. "tests,smoke,timing" then "bench".
# KBENCH_DEVICE_MAX_WALL_S=S gives the suite runs of the smoke, integrity, cudalaunch and faults
# stages `--max-wall S` (each its own deadline; `kbench run --help`). Their journals are kept in
# OUTDIR/journals (so they come back with the call); KBENCH_DEVICE_JOURNALS=DIR (a carried ignored
# folder such as .resume/journals, where the last call's journals were copied) resumes from them:
# a stage cut by one call continues in the next instead of starting again.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${1:-${OUT:-/tmp}}"
BUILD="${KBENCH_BUILD_DIR:-$ROOT/build-device}"
PYTHON="${KBENCH_PYTHON:-$(command -v python3)}"
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1
status=0
STAGES=",${KBENCH_DEVICE_STAGES:-tests,smoke,timing,integrity,faults,overhead,bench},"
# KBENCH_DEVICE_DEADLINE_S=S: no stage starts once S seconds of this script have passed (a stage
# already running keeps its own limits). With the device tool's 600 s per call, a call that runs
# past it brings nothing back, so give the call e.g. 480 here and wrap it in `timeout -s INT`
# under the limit, then pack OUTDIR: what finished comes back, journals included.
want() {
  [[ "$STAGES" == *",$1,"* ]] || return 1
  if [ -n "${KBENCH_DEVICE_DEADLINE_S:-}" ] && [ "$SECONDS" -ge "$KBENCH_DEVICE_DEADLINE_S" ]; then
    printf '\n=== %s: not started, KBENCH_DEVICE_DEADLINE_S=%s reached at %s s\n' "$1" "$KBENCH_DEVICE_DEADLINE_S" "$SECONDS"
    status=1
    return 1
  fi
}
# run_limits NAME: the deadline and journal options for one stage's `kbench run` (see above).
run_limits() {
  local limits=()
  [ -n "${KBENCH_DEVICE_MAX_WALL_S:-}" ] && limits+=(--max-wall "$KBENCH_DEVICE_MAX_WALL_S" --max-wall-grace 20)
  mkdir -p "$OUTDIR/journals"
  local journal="$OUTDIR/journals/$1.journal.jsonl"
  if [ -n "${KBENCH_DEVICE_JOURNALS:-}" ] && [ -s "$KBENCH_DEVICE_JOURNALS/$1.journal.jsonl" ]; then
    cp "$KBENCH_DEVICE_JOURNALS/$1.journal.jsonl" "$journal"
    limits+=(--resume)
  fi
  limits+=(--journal "$journal")
  echo "${limits[@]}"
}
step() { printf '\n=== %s\n' "$*"; }
# KBENCH_HONEST_SHARD=i/N: the shard of the honest and original stages, and their files' suffix.
shard=()
[ -n "${KBENCH_HONEST_SHARD:-}" ] && shard=(--shard "$KBENCH_HONEST_SHARD")
tag="${KBENCH_HONEST_SHARD:+-${KBENCH_HONEST_SHARD%/*}}"

# KBENCH_DEVICE_EXT_CACHE=FILE: a previous call's OUTDIR/extensions.tgz (carried in an ignored
# folder), unpacked into this machine's kbench cache before any run, so the CUDA candidates'
# load_inline extensions are not built again with a cold nvcc on each fresh machine (an entry's
# key names its sources, flags, torch and CUDA: docs/extensions.md). Every call packs the cache
# back into OUTDIR/extensions.tgz (~1-3 MB per CUDA extension before compression).
cache_root="${KBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}"
if [ -n "${KBENCH_DEVICE_EXT_CACHE:-}" ] && [ -s "$KBENCH_DEVICE_EXT_CACHE" ]; then
  mkdir -p "$cache_root" && tar xzf "$KBENCH_DEVICE_EXT_CACHE" -C "$cache_root" \
    && echo "extension cache: $(ls "$cache_root/extensions" | wc -l) entries from $KBENCH_DEVICE_EXT_CACHE"
fi
pack_extension_cache() {
  [ -d "$cache_root/extensions" ] && tar czf "$OUTDIR/extensions.tgz" -C "$cache_root" extensions \
    && echo "extension cache packed: $(ls "$cache_root/extensions" | wc -l) entries, $(du -h "$OUTDIR/extensions.tgz" | cut -f1)"
}

step "environment"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv,noheader || true
# HMM/ATS: kernels may dereference pageable host memory, so Triton candidates are placed apart
# (docs/threat-model.md#raw-memory-from-pure-python); the results' environment records it too.
nvidia-smi -q 2>/dev/null | grep -i "addressing mode" || true
"$PYTHON" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"

step "build"
start=$(date +%s)
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$PYTHON" \
  > "$OUTDIR/configure.log" 2>&1 || { tail -30 "$OUTDIR/configure.log"; exit 1; }
# KBENCH_DEVICE_TARGETS=kbench builds only the two executables (no tests): a fresh machine's
# build in about half the time, for calls that run no ctest stage.
targets=()
for target in ${KBENCH_DEVICE_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$BUILD" --parallel "$(nproc)" "${targets[@]}" > "$OUTDIR/build.log" 2>&1 || { grep -E "error" -A3 "$OUTDIR/build.log" | head -60; exit 1; }
build_s=$(( $(date +%s) - start ))
echo "built in ${build_s} s"

ctest_rc=skipped tests_s=0 smoke_rc=skipped smoke_s=0
if want tests; then
step "tests (ctest; CPU end-to-end, Python-schema and browser tests are left to CI)"
start=$(date +%s)
(cd "$BUILD" && ctest --output-on-failure --parallel 8 -LE "e2e|python|browser") > "$OUTDIR/ctest.log" 2>&1
ctest_rc=$?
tests_s=$(( $(date +%s) - start ))
tail -15 "$OUTDIR/ctest.log"
[ $ctest_rc -eq 0 ] || status=1
fi

if want smoke; then
step "smoke suite on cuda"
start=$(date +%s)
# KBENCH_SMOKE_ARGS: more `kbench run` options (e.g. --keep-reference-drift 0.000001, which sends
# every kept-reference job through the refresh and full attempt on a trusted worker's artefacts).
"$BUILD/bin/kbench" run "$ROOT/configs/suites/smoke.yaml" --device cuda -o "$OUTDIR/smoke-cuda.json" $(run_limits smoke) ${KBENCH_SMOKE_ARGS:-} \
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
    # A baseline the harness failed to build is a harness bug, never the candidate's (2026-12-06:
    # Inductor restored from a kept cache wrote outside the sandbox; docs/timing.md#kept-reference-work).
    for name, note in (r.get("diagnostics", {}).get("baselines") or {}).items():
        if isinstance(note, dict) and "error" in note:
            bad.append(f'{r["candidate"]}: baseline {name} failed: {note["error"][-300:]}')
    # Default scheduling on CUDA: 2 workers per GPU sharing it through the per-GPU lock.
    if r["status"] in ("ok", "mismatch") and "gpu_lock_wait_s" not in r["protocol"]:
        bad.append(f'{r["candidate"]}: no protocol.gpu_lock_wait_s (GPU lock not taken)')
slots = {r["schedule"]["slot"] for r in doc["results"] if "schedule" in r}
if len(doc["results"]) > 1 and len(slots) < 2:
    bad.append(f"only worker slot(s) {sorted(slots)} used; expected 2 per GPU")
waits = [r["protocol"].get("gpu_lock_wait_s", 0) for r in doc["results"]]
print(f"worker slots {sorted(slots)}; GPU lock wait total {sum(waits):.1f} s, max {max(waits, default=0):.1f} s")
print("\n".join(bad) if bad else f'all {len(doc["results"])} statuses as expected on {doc["environment"]["device_name"]}')
# The jobs ran inside the sandbox (docs/sandbox.md): CUDA must work under it.
print("sandbox:", json.dumps(doc["environment"].get("sandbox")))
sys.exit(1 if bad else 0)
PY

fi

if want falsepos; then
step "zero false positives: every shipped honest candidate passes every check (smoke, level1; issue #5)"
start=$(date +%s)
"$BUILD/bin/kbench" run "$ROOT/configs/suites/level1.yaml" --device cuda -o "$OUTDIR/level1-cuda.json" \
  > "$OUTDIR/level1-cuda.txt" 2>&1 || { status=1; tail -5 "$OUTDIR/level1-cuda.txt"; }
echo "level1 on cuda took $(( $(date +%s) - start )) s"
"$PYTHON" "$ROOT/benchmarks/integrity/false_positives.py" "$OUTDIR"/smoke-cuda.json "$OUTDIR/level1-cuda.json" \
  | tee "$OUTDIR/false-positives.txt" || status=1
fi

if want honest; then
step "honest corpus (tests/data/suites/honest_gpu.yaml; issues #12, #20): every honest candidate ok, no flag"
# 40 honest jobs (22 with extension builds; cold nvcc, Triton and Inductor caches on a fresh
# machine): more than one call. The corpus is about verdicts, so eager only and the rl timing
# preset (every check stays on; docs/timing.md#presets), which keeps each job's GPU-exclusive
# timing short. KBENCH_HONEST_BUDGET_S: at its end SIGINT stops scheduling, running jobs get 60 s,
# and the journal (OUTDIR/journals, resumed from KBENCH_DEVICE_JOURNALS) keeps what finished for
# the next call. KBENCH_HONEST_SHARD=i/N runs one shard. KBENCH_HONEST_ONLY=cuda (or triton): only
# the candidates of tests/honest/<that>/ and their problems (cuda: the isolated, witnessed ones).
start=$(date +%s)
htag="$tag${KBENCH_HONEST_ONLY:+-$KBENCH_HONEST_ONLY}"
only=()
if [ -n "${KBENCH_HONEST_ONLY:-}" ]; then
  only=(--candidates "$ROOT/tests/honest/$KBENCH_HONEST_ONLY/{id}__*.py")
  for id in $(ls "$ROOT/tests/honest/$KBENCH_HONEST_ONLY"/*__*.py | xargs -n1 basename | sed 's/__.*//' | sort -u); do
    only+=(--problems "$id")
  done
fi
timeout -s INT -k 60 "${KBENCH_HONEST_BUDGET_S:-480}" \
  "$BUILD/bin/kbench" run "$ROOT/tests/data/suites/honest_gpu.yaml" --device cuda -j "${KBENCH_HONEST_JOBS:-8}" \
  "${shard[@]}" "${only[@]}" ${KBENCH_HONEST_ARGS:---baselines eager --timing-preset rl} -o "$OUTDIR/honest-gpu$htag.json" \
  $(run_limits "honest-gpu$htag") > "$OUTDIR/honest-gpu$htag.txt" 2>&1 || { status=1; tail -5 "$OUTDIR/honest-gpu$htag.txt"; }
echo "honest_gpu${KBENCH_HONEST_SHARD:+ shard $KBENCH_HONEST_SHARD}: $(( $(date +%s) - start )) s"
"$PYTHON" "$ROOT/benchmarks/integrity/false_positives.py" "$OUTDIR/honest-gpu$htag.json" \
  > "$OUTDIR/honest-false-positives$htag.txt" || status=1
fi

if want original; then
step "the original suite's Triton solutions (configs/suites/original.yaml --tags triton; issue #13)"
# Speedups vs eager and Inductor at --max-time 2 (KBENCH_ORIGINAL_ARGS), journal as above.
start=$(date +%s)
timeout -s INT -k 60 "${KBENCH_ORIGINAL_BUDGET_S:-400}" \
  "$BUILD/bin/kbench" run "$ROOT/configs/suites/original.yaml" --tags triton --device cuda -j "${KBENCH_HONEST_JOBS:-8}" \
  "${shard[@]}" ${KBENCH_ORIGINAL_ARGS:---max-time 2} -o "$OUTDIR/original-triton$tag.json" \
  $(run_limits "original-triton$tag") > "$OUTDIR/original-triton$tag.txt" 2>&1 || { status=1; tail -5 "$OUTDIR/original-triton$tag.txt"; }
echo "original --tags triton: $(( $(date +%s) - start )) s"
"$PYTHON" "$ROOT/benchmarks/integrity/false_positives.py" "$OUTDIR/original-triton$tag.json" \
  > "$OUTDIR/original-false-positives$tag.txt" || status=1
"$PYTHON" "$ROOT/benchmarks/original/speedup_table.py" "$OUTDIR/original-triton$tag.json" \
  > "$OUTDIR/original-triton-table$tag.txt" || status=1
fi

if want throughput; then
step "throughput: one GPU against every visible GPU (benchmarks/throughput; issue #4)"
# GPU-bound jobs (eager baseline only, timing runs its full max_time), so the figure is about
# the scheduling, not about CPU compile contention on a shared host.
COPIES=${KBENCH_THROUGHPUT_COPIES:-4} bash "$ROOT/benchmarks/throughput/throughput.sh" "$BUILD/bin/kbench" \
  "$OUTDIR/throughput" gpus 2 --baselines eager --target-ci 0.00001 --max-time "${KBENCH_THROUGHPUT_MAX_TIME:-8}" \
  | tee "$OUTDIR/throughput.txt" || status=1
fi

if want throughput1; then
step "throughput1: 64 Triton candidates through the Evaluator (timing rl), kbench run (defaults), KernelBench's evaluator (issue #14)"
# Needs the Python module (default targets, or KBENCH_DEVICE_TARGETS="kbench _kbench") and, for
# the KernelBench side, an unmodified checkout with src/ in KB_DIR (default .kb). Budgets: the
# Evaluator's batch runs to the end; kbench run is stopped at KBENCH_TP_RUN_BUDGET_S (its rate
# is over what finished); KernelBench starts no candidate after KBENCH_TP_KB_BUDGET_S.
TP="$OUTDIR/throughput1"
mkdir -p "$TP"
if compgen -G "$BUILD/python/kbench/_kbench*.so" >/dev/null; then
  PYTHONPATH="$BUILD/python" "$PYTHON" "$ROOT/benchmarks/throughput/rl_batch.py" --device cuda \
    --kbench "$BUILD/bin/kbench" --out "$TP" --run-budget-s "${KBENCH_TP_RUN_BUDGET_S:-150}" ${KBENCH_TP_ARGS:-} \
    2>&1 | tee "$TP/rl-batch.txt" || status=1
else
  echo "the Python module was not built:"; grep "Python module" "$OUTDIR/configure.log"; status=1
fi
KB="${KB_DIR:-$ROOT/.kb}"
if [ -f "$KB/src/kernelbench/eval.py" ]; then
  "$PYTHON" "$ROOT/benchmarks/throughput/kernelbench_eval.py" "$KB" --budget-s "${KBENCH_TP_KB_BUDGET_S:-110}" \
    --json "$TP/kernelbench.json" 2>&1 | tee "$TP/kernelbench.txt" || status=1
else
  echo "throughput1: no KernelBench sources in $KB/src (set KB_DIR; see benchmarks/throughput/README.md)"; status=1
fi
if [ -f "$TP/throughput-rl.json" ]; then
  kbjson=(); [ -f "$TP/kernelbench.json" ] && kbjson=("$TP/kernelbench.json")
  "$PYTHON" "$ROOT/benchmarks/throughput/rl_table.py" "$TP/throughput-rl.json" "${kbjson[@]}" \
    | tee "$OUTDIR/throughput1.txt" || status=1
fi
fi

if want timing; then
step "GPU timing checks (side-stream candidate, A/A copy)"
# --checks minimal: timing fidelity is under test; the integrity stage rejects these candidates.
"$BUILD/bin/kbench" run "$ROOT/tests/data/suites/gpu_timing.yaml" --device cuda -q --checks minimal -o "$OUTDIR/gpu-timing.json" \
  > "$OUTDIR/gpu-timing.txt" 2>&1
"$PYTHON" - "$OUTDIR/gpu-timing.json" <<'PY' || status=1
import json, sys
r = {x["problem"]: x for x in json.load(open(sys.argv[1]))["results"]}
side, copy = r["matmul_side_stream"], r["matmul_copy"]
problems = []
if side["status"] != "ok":
    problems.append(f"side-stream candidate: {side['status']} {side['message'][:200]}")
else:
    s = side["speedups"]["eager"]["value"]
    flagged = side["timings"]["candidate"]["offstream_samples"]
    print(f"side-stream candidate: speedup vs eager {s:.3f}, off-stream samples {flagged}/{side['timings']['candidate']['n']}")
    if s > 1.2: problems.append(f"side-stream work under-reported: speedup {s:.2f}")
    if flagged == 0: problems.append("side-stream samples not flagged")
if copy["status"] != "ok":
    problems.append(f"A/A copy: {copy['status']}")
else:
    sp = copy["speedups"]["eager"]
    print(f"A/A copy of matmul: speedup {sp['value']:.4f} CI {sp['ci']} verdict {sp['verdict']}")
    if abs(1 - sp["value"]) > 0.01: problems.append("A/A copy off by more than 1%")
print("\n".join(problems) if problems else "GPU timing checks passed")
sys.exit(1 if problems else 0)
PY

fi

if want integrity; then
step "integrity: GPU-only exploits rejected by the right check, honest candidates pass (docs/integrity.md)"
"$BUILD/bin/kbench" run "$ROOT/tests/data/suites/exploits_gpu.yaml" --device cuda -q -o "$OUTDIR/exploits-gpu.json" $(run_limits exploits-gpu) \
  > "$OUTDIR/exploits-gpu.txt" 2>&1
"$PYTHON" - "$OUTDIR/exploits-gpu.json" "$OUTDIR/smoke-cuda.json" <<'PY' || status=1
import json, os, sys
results = json.load(open(sys.argv[1]))["results"]
r = {f'{x["problem"]}/{os.path.basename(x["candidate"])}': x for x in results}
by_problem = {x["problem"]: k for k, x in r.items()}
want = {"matmul_side_stream": ("side_stream", "mismatch"), "clamp_affine_token": ("custom_kernel_share",),
        "clamp_affine_decoy": ("custom_kernel_not_launched",), "clamp_affine_stale": ("mismatch",),
        "clamp_affine_first_buffer": ("timed_call_check",), "clamp_affine_stream_query": ("timed_call_check",),
        "clamp_affine_watched/first_buffer_only.py": ("timed_call_check",),
        "clamp_affine_watched/cache_by_pointer.py": ("timed_call_check",),
        "clamp_affine_watched/input_statistics_gate.py": ("ok",),
        "matmul_content/content_fingerprint_cache.py": ("ok",),
        "matmul_content/content_sum_cache.py": ("ok",),
        "matmul_content/gpu_content_cache_triton.py": ("ok",),
        # On the GPU its 50 ms cadence fires only at times: caught (a checked call or trial), or ok earning nothing.
        "clamp_affine_watched/timing_cadence.py": ("timed_call_check", "mismatch", "ok"),
        "matmul_snapshot_expected": ("mismatch",), "matmul_snapshot_baseline": ("ok",),
        "clamp_affine_intermediate": ("mismatch",), "matmul_event_forgery": ("timing_witness",),
        "matmul_event_forgery_honest_speed": ("timing_witness",),
        "clamp_affine_sampled_indices": ("timed_call_check",),
        "matmul_native_content": ("ok",),
        # Its hook on the compiled reference makes Dynamo compile again, after the snapshot:
        # Inductor's compile workers are its processes (child_process, first since 2026-12-06).
        "matmul_inductor_slowed": ("baseline_cross_check", "child_process"),
        "clamp_affine_numpy_samples": ("timing_witness",), "clamp_affine_launch_hook": ("monkeypatch", "child_process"),
        "clamp_affine_allocator_history": ("monkeypatch",),
        # Any check may catch it; ok only if it earns nothing (below).
        "attention_allocator_release": ("ok", "monkeypatch", "timed_call_check", "allocator_release"),
        "tiny_output/zeros_output.py": ("mismatch",), "tiny_output/honest_tiny_output.py": ("ok",),
        "tiny_output/zeros_where_unwatched.py": ("timed_call_check",),
        "linear_l2_resident/l2_evict_last_weights.py": ("ok",),
        "linear_l2_resident/l2_evict_last_control.py": ("ok",),
        "linear_l2_resident/l2_persisting_window.py": ("ok",),
        "clamp_affine_honest": ("ok",)}
# ok, but no speedup: eager / candidate <= 1.1 (content caches: fresh values, the cache never hits)
earns_nothing = {"matmul_snapshot_baseline", "clamp_affine_watched/input_statistics_gate.py",
                 "matmul_content/content_fingerprint_cache.py", "matmul_content/content_sum_cache.py",
                 "matmul_content/gpu_content_cache_triton.py", "matmul_native_content",
                 "clamp_affine_watched/timing_cadence.py", "attention_allocator_release",
                 "linear_l2_resident/l2_persisting_window.py"}
problems = []
for key, accepted in want.items():
    x = r.get(key) or r.get(by_problem.get(key, ""))
    if x is None:
        problems.append(f"{key}: no result"); continue
    got = x["diagnostics"].get("integrity", {}).get("check") if x["status"] == "rejected" else x["status"]
    audit = x["diagnostics"].get("integrity_notes", {}).get("timed_call_check", {})
    per_call = audit.get("us_per_call")
    speedup = x.get("speedups", {}).get("eager", {}).get("value")
    print(f'{key:46} {x["status"]:9} {got or "":26} cost {x["diagnostics"].get("integrity_cost_s", 0):.3f} s'
          f'  check {per_call or 0:.0f} us/call  fresh {audit.get("fresh_inputs", {}).get("used")}'
          f'  speedup {speedup if speedup is not None else "-"}  {x["message"][:110]}')
    if key in ("clamp_affine_intermediate", "clamp_affine_sampled_indices", "matmul_event_forgery",
               "matmul_event_forgery_honest_speed",
               "matmul_native_content", "matmul_inductor_slowed"):
        notes = x["diagnostics"].get("integrity_notes", {})
        print(f'    freed {notes.get("freed_memory_released")} isolation {x["diagnostics"].get("isolation")}'
              f' judged {x["diagnostics"].get("judged")} cross-check {notes.get("baseline_cross_check")}')
    if got not in accepted: problems.append(f"{key}: got {got}, want {' or '.join(accepted)}")
    if key in earns_nothing and x["status"] == "ok" and (speedup is None or speedup > 1.1):
        problems.append(f"{key}: earned a speedup of {speedup}")
# The evict_last hint may not earn more than 10% beyond the same kernel without it.
hinted, control = (r.get(f"linear_l2_resident/l2_evict_last_{n}.py") for n in ("weights", "control"))
if hinted and control and hinted["status"] == control["status"] == "ok":
    s_hint, s_ctl = (x.get("speedups", {}).get("eager", {}).get("value") for x in (hinted, control))
    print(f"evict_last hint vs control: {s_hint} / {s_ctl}")
    if s_hint and s_ctl and s_hint > 1.1 * s_ctl:
        problems.append(f"linear_l2_resident: the evict_last hint earned {s_hint / s_ctl:.2f}x over its control")
if os.path.exists(sys.argv[2]):  # zero false positives on the smoke suite, and the checks' cost
    for x in json.load(open(sys.argv[2]))["results"]:
        d = x["diagnostics"]
        print(f'smoke {x["problem"]}/{x["candidate"]}: {x["status"]} checks {d.get("checks")} cost {d.get("integrity_cost_s", 0):.3f} s share {d.get("integrity_notes", {}).get("kernel_share", {}).get("share")} timed_call_check {d.get("integrity_notes", {}).get("timed_call_check", {}).get("us_per_call", 0):.0f} us/call flags {d.get("flags", [])}')
print("\n".join(problems) if problems else "GPU integrity checks passed")
sys.exit(1 if problems else 0)
PY
fi

if want cudalaunch; then
step "cudalaunch: CUDA load_inline candidates in LLM styles ok with their kernels' share; hostile ones rejected (issue #12)"
"$BUILD/bin/kbench" run "$ROOT/tests/data/suites/cuda_launch_gpu.yaml" --device cuda -q -o "$OUTDIR/cuda-launch.json" $(run_limits cuda-launch) \
  > "$OUTDIR/cuda-launch.txt" 2>&1
"$PYTHON" - "$OUTDIR/cuda-launch.json" <<'PY' || status=1
import json, sys
problems = []
for x in json.load(open(sys.argv[1]))["results"]:
    d = x["diagnostics"]
    notes = d.get("integrity_notes", {})
    share = notes.get("kernel_share", {}).get("share")
    got = d.get("integrity", {}).get("check") if x["status"] == "rejected" else x["status"]
    hostile = x["problem"].endswith("_hostile")
    print(f'{x["candidate"]:30} {x["status"]:9} {got or "":22} share {share if share is None else round(share, 3)} '
          f'cost {d.get("integrity_cost_s", 0):.2f} s launches {notes.get("launches_first_call")} '
          f'extensions {list(notes.get("candidate_extensions", {}).values())} flags {d.get("flags", [])} {x["message"][:100]}')
    # load_inline: placed apart from its expected values, its timing witnessed (issue #20).
    iso = d.get("isolation", {})
    print(f'    isolation {iso.get("mode")} workers {iso.get("reference_worker_s", 0):.1f}/{iso.get("candidate_worker_s", 0):.1f}/'
          f'{iso.get("judge_worker_s", 0):.1f} s witness {iso.get("witness")}')
    # The judge in the memory plan (docs/memory.md#the-judge): its own GPU peak beside its plan.
    judge, judged = x.get("memory", {}).get("judge"), d.get("judged", {})
    print(f'    judge setup {judged.get("setup_s", 0):.2f} s judgement {judged.get("judge_s", 0):.2f} s '
          f'reference calls {judged.get("fresh_values")} memory {judge}')
    if "fresh_values" in judged and x["status"] == "ok" and not (judge or {}).get("gpu_peak_reserved_bytes"):
        problems.append(f'{x["candidate"]}: its judge ran the reference on the GPU and reported no peak ({judge})')
    if iso.get("mode") != "blinded":
        problems.append(f'{x["candidate"]}: not isolated ({iso})')
    if not hostile and not iso.get("witness"):
        problems.append(f'{x["candidate"]}: no timing witness ({iso})')
    if hostile and got != "custom_kernel_share":
        problems.append(f'{x["candidate"]}: got {got}, want custom_kernel_share')
    if not hostile and (got != "ok" or d.get("flags") or share is None or share < 0.5):
        problems.append(f'{x["candidate"]}: got {got} share {share} flags {d.get("flags")}, want ok, share >= 0.5, no flag')
print("\n".join(problems) if problems else "CUDA launch/share checks passed")
sys.exit(1 if problems else 0)
PY
fi

if want faults; then
step "GPU faults: hung kernel, illegal memory access, device OOM; honest work after each (issue #4)"
"$BUILD/bin/kbench" run "$ROOT/tests/data/suites/faults_gpu.yaml" --device cuda -j 1 -q -o "$OUTDIR/faults-gpu.json" $(run_limits faults-gpu) \
  > "$OUTDIR/faults-gpu.txt" 2>&1
"$PYTHON" - "$OUTDIR/faults-gpu.json" <<'PY' || status=1
import json, sys
r = {x["problem"]: x for x in json.load(open(sys.argv[1]))["results"]}
want = {"hang": ("timeout",), "run_hang": ("timeout",), "illegal_access": ("runtime_error", "crashed"),
        "out_of_memory": ("runtime_error",), "after_hang": ("ok",), "after_run_hang": ("ok",),
        "after_illegal_access": ("ok",), "after_out_of_memory": ("ok",)}
limit = {"hang": "compile_timeout_s", "run_hang": "run_timeout_s"}
problems = []
for pid, accepted in want.items():
    x = r.get(pid)
    if x is None:
        problems.append(f"{pid}: no result"); continue
    print(f'{pid:22} {x["status"]:14} {x["wall_s"]:6.1f} s  {x["message"][:110]}')
    if x["status"] not in accepted: problems.append(f"{pid}: got {x['status']}, want {' or '.join(accepted)}")
    if pid in limit and f"({limit[pid]})" not in x["message"]: problems.append(f"{pid}: not stopped by {limit[pid]}")
print("\n".join(problems) if problems else "GPU faults contained")
sys.exit(1 if problems else 0)
PY
fi

if want overhead; then
step "harness overhead per candidate: pre-started workers on and off (benchmarks/harness_overhead)"
for mode in ${KBENCH_OVERHEAD_MODES:-on off}; do
  echo "--prestart $mode"
  bash "$ROOT/benchmarks/harness_overhead/run.sh" "$BUILD/bin/kbench" "$OUTDIR/overhead-$mode" cuda ${KBENCH_OVERHEAD_N:-12} \
    -j 1 --prestart $mode 2>&1 | tail -6 | tee "$OUTDIR/overhead-$mode.txt" || status=1
done
fi

if want hashing; then
step "host hashing throughput on this machine's CPU: SHA-NI or portable, Merkle trees (benchmarks/hashing)"
# Needs the kbench-hash-bench target (default targets, or add it to KBENCH_DEVICE_TARGETS).
"$BUILD/bin/kbench-hash-bench" 256 2>&1 | tee "$OUTDIR/hashing.txt" || status=1
# And the host output comparison (kbench-compare-bench; benchmarks/comparison), when built.
[ -x "$BUILD/bin/kbench-compare-bench" ] && { "$BUILD/bin/kbench-compare-bench" 64 2>&1 | tee "$OUTDIR/comparison.txt" || status=1; }
fi

if want buildcache; then
step "extension build cache: a CUDA load_inline suite twice on a fresh cache (benchmarks/extension_cache)"
bash "$ROOT/benchmarks/extension_cache/run.sh" "$BUILD/bin/kbench" "$OUTDIR/buildcache" cuda 2>&1 \
  | tee "$OUTDIR/buildcache.txt" || status=1
fi

if want bench; then
  step "timing benchmarks: A/A (kbench vs KernelBench-style protocol)"
  start=$(date +%s)
  bash "$ROOT/benchmarks/timing/aa_benchmark.sh" "$BUILD/bin/kbench" "$OUTDIR" cuda ${KBENCH_AA_SUITES:-smoke level1} \
    | tee "$OUTDIR/aa-report.txt"
  echo "A/A took $(( $(date +%s) - start )) s"
  # KBENCH_DEVICE_NCU=0 skips the fidelity profile (up to 240 s per suite).
  if [ "${KBENCH_DEVICE_NCU:-1}" != 0 ] && command -v ncu >/dev/null; then
    step "timing benchmarks: fidelity vs ncu"
    for suite in ${KBENCH_AA_SUITES:-smoke level1}; do
      KBENCH_NCU_ORDER="$OUTDIR/ncu-order-$suite.json" timeout 240 ncu --profile-from-start off --clock-control none \
        --cache-control all --csv --metrics gpu__time_duration.sum \
        "$PYTHON" "$ROOT/benchmarks/timing/ncu_fidelity.py" profile "$ROOT/configs/suites/$suite.yaml" \
        > "$OUTDIR/ncu-$suite.csv" 2> "$OUTDIR/ncu-$suite.err"
      "$PYTHON" "$ROOT/benchmarks/timing/ncu_fidelity.py" compare "$OUTDIR/ncu-$suite.csv" \
        "$OUTDIR/aa-$suite-cold.json" "$OUTDIR/ncu-order-$suite.json" | tee "$OUTDIR/ncu-$suite.txt" \
        || tail -5 "$OUTDIR/ncu-$suite.err"
    done
  fi
fi

if want kbmemory; then
step "kbmemory: full-size KernelBench A/A, subset ${KBENCH_KB_SUBSET:-memory} (docs/memory.md)"
# KBENCH_KB_SUBSET=all is issue #13's 250 problems: several calls, each resuming the journal of
# the last (KBENCH_DEVICE_JOURNALS; keep OUTDIR the same path in every call, since the plan names
# the A/A candidates by their absolute path). KBENCH_KB_ARGS: more `kbench run` options.
KB="${KB_DIR:-$ROOT/.kb}"
if [ -d "$KB/KernelBench" ]; then
  SUBSET="${KBENCH_KB_SUBSET:-memory}" KBENCH="$BUILD/bin/kbench" PYTHON="$PYTHON" \
    RUN_TIMEOUT_S="${KBENCH_KB_RUN_S:-420}" "$ROOT/benchmarks/kernelbench/aa_run.sh" "$KB" "$OUTDIR/kbmemory" \
    ${KBENCH_KB_ARGS:-} $(run_limits "kbmemory-${KBENCH_KB_SUBSET:-memory}") > "$OUTDIR/kbmemory.txt" 2>&1 || status=1
  cat "$OUTDIR/kbmemory.txt"
else
  echo "kbmemory: no KernelBench checkout in $KB (set KB_DIR)"; status=1
fi
fi

if want keptaa; then
step "keptaa: kept reference work vs the full protocol, A/A (benchmarks/kept_reference; issue #14)"
# 3 smoke problems, then 3 level-1 problems of KB_DIR when present; 3 copies each, both ways.
KB_DIR="${KB_DIR:-$ROOT/.kb}" KB_PROBLEMS="${KBENCH_KEPT_KB_PROBLEMS:-3}" \
  timeout -k 30 "${KBENCH_KEPT_AA_S:-400}" "$ROOT/benchmarks/kept_reference/aa.sh" "$BUILD/bin/kbench" "$OUTDIR/keptaa" \
  > "$OUTDIR/keptaa.txt" 2>&1 || status=1
cat "$OUTDIR/keptaa.txt"
fi

if want python; then
step "the kbench Python module on cuda: the smoke suite's candidates in one evaluate_batch (benchmarks/python_module; issue #14)"
# Built with the default targets, or KBENCH_DEVICE_TARGETS="kbench _kbench".
if compgen -G "$BUILD/python/kbench/_kbench*.so" >/dev/null; then
  PYTHONPATH="$BUILD/python" "$PYTHON" "$ROOT/benchmarks/python_module/evaluate_suite.py" \
    "$ROOT/configs/suites/smoke.yaml" cuda "$ROOT/benchmarks/solutions/smoke/{id}_*.py" \
    --json "$OUTDIR/python-smoke.json" 2>&1 | tee "$OUTDIR/python-smoke.txt" || status=1
else
  echo "the Python module was not built:"; grep "Python module" "$OUTDIR/configure.log"
  status=1
fi
fi

pack_extension_cache
step "summary"
printf '%-28s %s\n' "build" "${build_s} s"
printf '%-28s %s\n' "ctest (rc)" "$ctest_rc in ${tests_s} s"
printf '%-28s %s\n' "smoke on cuda (rc)" "$smoke_rc in ${smoke_s} s"
[ -f "$OUTDIR/smoke-cuda.json" ] && "$PYTHON" - "$OUTDIR/smoke-cuda.json" <<'PY'
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
[ -f "$OUTDIR/aa-report.txt" ] && sed -n '1,5p' "$OUTDIR/aa-report.txt" | grep -E "protocol|cold|kernelbench"
for f in "$OUTDIR"/ncu-*.txt; do [ -f "$f" ] && tail -1 "$f"; done
[ -f "$OUTDIR/false-positives.txt" ] && tail -2 "$OUTDIR/false-positives.txt"
for mode in on off; do
  [ -f "$OUTDIR/overhead-$mode.txt" ] && echo "overhead, --prestart $mode: $(tail -1 "$OUTDIR/overhead-$mode.txt")"
done
[ -f "$OUTDIR/buildcache.txt" ] && tail -2 "$OUTDIR/buildcache.txt"
# The honest stage's tables, last: every honest row (status, checks, cost, share, flags), then
# the original suite's speedups.
for f in "$OUTDIR"/honest-false-positives*.txt "$OUTDIR"/original-false-positives*.txt "$OUTDIR"/original-triton-table*.txt; do [ -f "$f" ] && cat "$f"; done
# Jobs a deadline stopped: the GPU lock time the others lost to them, then where their workers
# were (exec/lock_blame.hpp).
cat "$OUTDIR"/honest-gpu*.txt "$OUTDIR"/original*.txt 2>/dev/null | grep "^kbench: stopped" | sed "s#^kbench: stopped ##; s#; its workers: #\n    #" | cut -c1-240
[ -f "$OUTDIR/throughput.txt" ] && grep -E "GPU|slot|agree|DIFFER" "$OUTDIR/throughput.txt"
[ -f "$OUTDIR/throughput1.txt" ] && cat "$OUTDIR/throughput1.txt"
echo "device-test: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
