"""Issue #14's throughput benchmark: one batch of Triton candidates (honest, slow, wrong and
hostile, over the eight level-1 problems of rl_suite.yaml) through the `kbench` Python module as an
RL trainer calls it (one Evaluator, the `rl` timing preset, full checks, the whole batch submitted
at once through the async submit, each result printed as it arrives), then the same batch through
`kbench run` with today's defaults, for the ratio.

Prints the sustained evaluations/s of both, every status against the expected one, and the summed
time split. Exit 1 when a status is not the expected one or a run fails.

  PYTHONPATH=build/python python3 benchmarks/throughput/rl_batch.py --device cuda \\
      --kbench build/bin/kbench --out /tmp/tp [--problems 8] [--run-budget-s 200]
  # the reference fill (docs/serve.md#reference-fill): the batch sent once the fill is done, as
  # a trainer whose first rollouts outlast it; compare with --fill-reference off
  ... --skip-run --wait-for-fill
  # CPU (Triton's interpreter; small sizes): the test_throughput_rl CTest entry runs
  python3 benchmarks/throughput/rl_batch.py --device cpu --problems 2 --hostile 2 --out /tmp/tp
"""
import argparse
import asyncio
import functools
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SUITE = HERE / "rl_suite.yaml"

# Hostile candidates reused from tests/hostile (each asserted there too), with the status each
# must get on every problem of the suite (all take one input `x`). The first ones are the cheap,
# common faults of real RL batches; the later ones are reward hacks.
# The torch-only ones are refused by the static checks before any import (the suite requires a
# custom kernel); decoy_kernel defines a Triton kernel it never launches and computes another
# op with torch, so it is imported and checked, and its wrong values are a mismatch; its
# ModelNew takes no constructor arguments, so on a problem with init inputs building it fails
# first (compile_error: see hostile_status).
HOSTILE = [
    ("tests/hostile/syntax_error.py", "compile_error"),
    ("tests/hostile/exploits/reference_via_gc.py", "rejected"),
    ("tests/hostile/exploits/decoy_kernel.py", "mismatch"),
    ("tests/hostile/forge_result_frame.py", "rejected"),
    ("tests/hostile/exploits/nan_output.py", "rejected"),
    ("tests/hostile/raise_in_forward.py", "rejected"),
]


# Candidates refused from their source alone (lib/worker/source_verdict.hpp): `--bad-source` makes
# a batch of only these, per problem, to show what they cost (a worker that never imports torch).
BAD_SOURCE = [
    ("tests/hostile/syntax_error.py", "compile_error"),
    ("tests/hostile/no_model_new.py", "compile_error"),
    ("tests/hostile/forbidden_import.py", "rejected"),
]


KINDS = ("honest", "slow", "wrong", "hostile", "bad_source")


def expected_status(name: str) -> str:
    """Own candidates say what they are in their file name: honest_* and slow_* are correct (a
    slow one is ok, merely slower), wrong_* must be a mismatch."""
    return "mismatch" if name.startswith("wrong_") else "ok"


@functools.lru_cache(maxsize=None)
def takes_init_inputs(problem: str) -> bool:
    """Whether the problem's get_init_inputs() gives its Model constructor arguments (as kbench
    calls it: the problem module imported, the function called)."""
    import importlib.util
    import yaml
    entry = next(p for p in yaml.safe_load(SUITE.read_text())["problems"] if p["id"] == problem)
    spec = importlib.util.spec_from_file_location(f"rl_problem_{problem}", SUITE.parent / entry["file"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return len(module.get_init_inputs()) > 0


def hostile_status(problem: str, rel: str, status: str) -> str:
    """The status a hostile file must get on this problem: the table's, except where its ModelNew
    cannot be built with the problem's init inputs (decoy_kernel takes none)."""
    if rel.endswith("decoy_kernel.py") and takes_init_inputs(problem):
        return "compile_error"
    return status


def build_batch(problems, hostile_count, cpu, bad_source=False):
    """[(problem, path, kind, expected)], problem by problem: own candidates, then hostile ones
    (bad_source: the BAD_SOURCE files only). On the CPU the multi-config @triton.autotune files are
    left out: Triton's interpreter has no benchmarker to choose a config with (tests/honest/README.md)."""
    batch = []
    if bad_source:
        return [(problem, ROOT / rel, "bad_source", status) for problem in problems for rel, status in BAD_SOURCE]
    for problem in problems:
        for path in sorted((HERE / "candidates" / problem).glob("*.py")):
            if cpu and "autotune" in path.name:
                continue
            batch.append((problem, path, path.name.split("_", 1)[0], expected_status(path.name)))
        for rel, status in HOSTILE[:hostile_count]:
            batch.append((problem, ROOT / rel, "hostile", hostile_status(problem, rel, status)))
    return batch


def suite_problems():
    import yaml  # PyYAML: in the venv of every kbench install (the tests use it)
    return [p["id"] for p in yaml.safe_load(SUITE.read_text())["problems"]]


def derived_suite(out: Path, name: str, eager_only: bool, candidates=None):
    """rl_suite.yaml written to OUT with absolute problem paths; eager_only drops the Inductor
    baseline (a CPU shortcut: Inductor's C++ compilation is most of a CPU evaluation); candidates,
    when given, replaces each problem's candidate files (problems without any are left out)."""
    import yaml
    suite = yaml.safe_load(SUITE.read_text())
    suite["suite"] = name
    for p in suite["problems"]:
        p["file"] = str((SUITE.parent / p["file"]).resolve())
    if eager_only:
        suite["defaults"]["baselines"] = ["eager"]
    if candidates is not None:
        suite.pop("candidates", None)
        for p in suite["problems"]:
            p["candidates"] = [str(path) for problem, path, _, _ in candidates if problem == p["id"]]
        suite["problems"] = [p for p in suite["problems"] if p["candidates"]]
    else:
        suite["candidates"] = str(HERE / "candidates" / "{id}" / "*.py")
    path = out / f"{name}.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def time_split(results):
    """Sums over the results of where the time went (kbench.Result.time)."""
    sums, phases = {}, {}
    for r in results:
        for key, value in r.time.items():
            if isinstance(value, (int, float)):
                sums[key] = sums.get(key, 0.0) + value
        for key, value in r.time.get("phases_s", {}).items():
            phases[key] = phases.get(key, 0.0) + value
    return sums, phases


def step_split(results):
    """Sums of the steps inside the worker's phases (diagnostics.worker_timeline.steps_s,
    "phase.step"): where a long phase such as the reference's went."""
    steps = {}
    for r in results:
        timeline = r.to_dict().get("result", {}).get("diagnostics", {}).get("worker_timeline", {})
        for key, value in timeline.get("steps_s", {}).items():
            steps[key] = steps.get(key, 0.0) + value
    return steps


def lock_counts(results):
    """Summed protocol.gpu_lock_yields and gpu_lock_compile_releases (CUDA workers with a lock)."""
    counts = {}
    for r in results:
        protocol = r.to_dict()["result"].get("protocol", {})
        for key in ("gpu_lock_yields", "gpu_lock_compile_releases"):
            if isinstance(protocol.get(key), int):
                counts[key] = counts.get(key, 0) + protocol[key]
    return counts


async def submit_all(ev, batch, started, log=None):
    """The whole batch submitted at once, as evaluate_batch does, but each result is printed as it
    arrives: a device call cut by its time limit still shows how far the batch got, and when."""
    done = 0

    async def one(problem, path):
        nonlocal done
        result = await ev.submit(problem, path.read_text())
        done += 1
        if log is not None:  # the whole result, as it arrives: a cut run keeps what finished
            log.write(json.dumps({"problem": problem, "candidate": path.name, **result.to_dict()}) + "\n")
            log.flush()
        t = result.time
        top = sorted(t.get("phases_s", {}).items(), key=lambda kv: -kv[1])[:4]
        print(f"  [{done}/{len(batch)}] {time.monotonic() - started:7.1f} s  {problem}/{path.name}: "
              f"{result.status}; queue {t.get('queue_wait_s', 0):.1f} s, worker {t.get('worker_wall_s') or 0:.1f} s, "
              f"lock {t.get('gpu_lock_wait_s') or 0:.1f} s; " + ", ".join(f"{k} {v:.1f}" for k, v in top),
              flush=True)
        return result

    return await asyncio.gather(*(one(problem, path) for problem, path, _, _ in batch))


def run_evaluator(args, suite, batch):
    import kbench
    started = time.monotonic()
    ev = kbench.Evaluator(str(suite), devices=args.device, workers=args.workers,
                          workers_per_gpu=args.workers_per_gpu, timing=args.timing,
                          keep_reference=args.keep_reference, prestart=args.prestart,
                          kbench_binary=args.kbench, fill_reference=args.fill_reference)
    if args.wait_for_fill:  # the fill's time is start-up here, not the batch's
        while not ev.stats()["reference_fill"]["done"]:
            time.sleep(0.5)
    startup_s = time.monotonic() - started
    started = time.monotonic()
    with open(args.out_dir / "results.jsonl", "w") as log:
        results = asyncio.run(submit_all(ev, batch, started, log))
    batch_s = time.monotonic() - started
    stats = ev.stats()
    env = ev.environment
    ev.close()
    return results, batch_s, startup_s, stats, env


def run_kbench_run(args, out: Path, batch):
    """The same batch through `kbench run`, today's defaults (full timing preset, default slots),
    stopped by SIGINT at --run-budget-s (running jobs finish; the results file keeps them)."""
    suite = derived_suite(out, "run-suite", args.eager_only, batch)
    results_file = out / "run.json"
    cmd = [args.kbench, "run", str(suite), "--device", args.device, "-q", "-o", str(results_file)]
    started = time.monotonic()
    with open(out / "run.txt", "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            proc.wait(timeout=args.run_budget_s)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            proc.wait()
    wall_s = time.monotonic() - started
    if not results_file.exists():
        raise SystemExit(f"kbench run wrote no results (exit {proc.returncode}); see {out / 'run.txt'}")
    doc = json.loads(results_file.read_text())
    return doc["results"], wall_s, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--kbench", default=str(ROOT / "build/bin/kbench"), help="the kbench binary")
    parser.add_argument("--out", required=True, help="folder for the summary and kbench run's files")
    parser.add_argument("--problems", type=int, default=8, help="the first N problems of rl_suite.yaml")
    parser.add_argument("--hostile", type=int, default=4, help="hostile candidates per problem (of %d)" % len(HOSTILE))
    parser.add_argument("--timing", default="rl", help="the Evaluator's timing preset")
    parser.add_argument("--workers", type=int, default=None, help="worker slots (default: the Evaluator's)")
    parser.add_argument("--workers-per-gpu", type=int, default=None)
    parser.add_argument("--keep-reference", default=None, choices=("auto", "on", "off"),
                        help="the Evaluator's keep_reference (default: its own, auto)")
    parser.add_argument("--prestart", default=None, type=lambda v: v == "on", metavar="on|off",
                        help="the Evaluator's prestart (default: its own)")
    parser.add_argument("--fill-reference", default=True, type=lambda v: v == "on", metavar="on|off",
                        help="the Evaluator's reference fill at start (default on)")
    parser.add_argument("--wait-for-fill", action="store_true",
                        help="send the batch only once the reference fill is done (its time counted as start-up)")
    parser.add_argument("--run-budget-s", type=float, default=None,
                        help="stop `kbench run` after this long (its rate is over what finished)")
    parser.add_argument("--skip-run", action="store_true", help="only the Evaluator")
    parser.add_argument("--bad-source", action="store_true",
                        help="a batch of only the BAD_SOURCE files (syntax error, no ModelNew, forbidden import)")
    parser.add_argument("--eager-only", action="store_true",
                        help="both sides without the Inductor baseline (CPU: it is most of the time)")
    args = parser.parse_args()
    args.kbench = str(Path(args.kbench).resolve())  # the worker is exec'd from its job dir
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    args.out_dir = out
    batch = build_batch(suite_problems()[: args.problems], args.hostile, args.device == "cpu", args.bad_source)
    kinds = {k: sum(1 for b in batch if b[2] == k) for k in KINDS if any(b[2] == k for b in batch)}
    print(f"batch: {len(batch)} candidates over {args.problems} problems ({json.dumps(kinds)})", flush=True)

    suite = derived_suite(out, "evaluator-suite", args.eager_only) if args.eager_only else SUITE
    results, batch_s, startup_s, stats, env = run_evaluator(args, suite, batch)
    bad = []
    rows = []
    for (problem, path, kind, expected), r in zip(batch, results):
        eager = r.speedups.get("eager")
        rows.append({"problem": problem, "candidate": str(path.relative_to(ROOT)), "kind": kind,
                     "expected": expected, "status": r.status, "speedup_vs_eager": eager.value if eager else None,
                     "worker_wall_s": r.time.get("worker_wall_s"), "total_s": r.time.get("total_s"),
                     "gpu_lock_wait_s": r.time.get("gpu_lock_wait_s"),
                     "converged": r.to_dict()["result"].get("protocol", {}).get("converged")})
        if r.status != expected:
            bad.append(f"evaluator: {problem}/{path.name}: {r.status}, expected {expected}: {r.message[:160]}")
    sums, phases = time_split(results)
    rate = len(results) / batch_s
    print(f"\nEvaluator (timing={args.timing}, checks=suite's, {stats['slots']} worker slots) on "
          f"{env.get('device_name', args.device)}:")
    print(f"  {len(results)} evaluations in {batch_s:.1f} s: {rate:.3f} evaluations/s sustained "
          f"(start-up {startup_s:.1f} s, not counted)")
    fill = stats.get("reference_fill", {})
    print(f"  reference fill: {fill.get('off') or json.dumps({k: fill.get(k) for k in ('problems', 'filled', 'failed', 'seconds')})}"
          f"{' (waited for before the batch)' if args.wait_for_fill else ''}")
    print(f"  statuses {json.dumps(stats['by_status'])}; unexpected {len(bad)}")
    walls = [x["worker_wall_s"] for x in rows if x["worker_wall_s"] is not None]
    if walls:
        print(f"  worker wall per evaluation: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s")
    print("  time split, summed (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(sums.items())))
    print("  worker phases, summed (s): " + ", ".join(
        f"{k} {v:.1f}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1])))
    steps = step_split(results)
    if steps:
        print("  steps inside them, summed (s): " + ", ".join(
            f"{k} {v:.1f}" for k, v in sorted(steps.items(), key=lambda kv: -kv[1])[:16]))
    lock = lock_counts(results)
    if lock:  # CUDA: what the lock's yield and the compiles without it did (docs/architecture.md)
        print("  GPU lock, summed: " + ", ".join(f"{k} {v}" for k, v in sorted(lock.items())))
    for kind in KINDS:
        kw = [x["worker_wall_s"] for x in rows if x["kind"] == kind and x["worker_wall_s"] is not None]
        if kw:
            print(f"  {kind:10} worker wall: median {statistics.median(kw):.2f} s, max {max(kw):.2f} s over {len(kw)}")
    ok_rows = [x for x in rows if x["status"] == "ok"]
    if ok_rows:
        conv = sum(1 for x in ok_rows if x["converged"])
        print(f"  timing converged (+-2% median CIs) in {conv} of {len(ok_rows)} ok results")

    summary = {"device": args.device, "eager_only": args.eager_only, "device_name": env.get("device_name"), "batch": len(batch), "kinds": kinds,
               "evaluator": {"timing": args.timing, "slots": stats["slots"], "wall_s": batch_s,
                             "startup_s": startup_s, "evaluations_per_s": rate, "by_status": stats["by_status"],
                             "time_sums_s": sums, "phases_sums_s": phases, "steps_sums_s": steps,
                             "gpu_lock_counts": lock, "reference_fill": fill,
                             "waited_for_fill": args.wait_for_fill},
               "results": rows}
    if not args.skip_run:
        run_results, run_s, rc = run_kbench_run(args, out, batch)
        by_path = {(p, str(path)): e for p, path, _, e in batch}
        run_bad = [f"kbench run: {r['problem']}/{Path(r['candidate_file']).name}: {r['status']}, expected "
                   f"{by_path[(r['problem'], r['candidate_file'])]}"
                   for r in run_results
                   if (r["problem"], r["candidate_file"]) in by_path
                   and r["status"] != by_path[(r["problem"], r["candidate_file"])]]
        run_rate = len(run_results) / run_s if run_results else 0.0
        run_phases = {}
        for r in run_results:
            for key, value in r.get("diagnostics", {}).get("worker_timeline", {}).get("phases_s", {}).items():
                run_phases[key] = run_phases.get(key, 0.0) + value
        print(f"\nkbench run, today's defaults: {len(run_results)} of {len(batch)} evaluations in {run_s:.1f} s "
              f"(exit {rc}{', stopped by the budget' if len(run_results) < len(batch) else ''}): "
              f"{run_rate:.3f} evaluations/s; unexpected {len(run_bad)}")
        print("  worker phases, summed (s): " + ", ".join(
            f"{k} {v:.1f}" for k, v in sorted(run_phases.items(), key=lambda kv: -kv[1])))
        if run_rate:
            print(f"  Evaluator ({args.timing}) / kbench run (defaults): x{rate / run_rate:.2f} evaluations/s")
        bad += run_bad
        summary["kbench_run"] = {"evaluations": len(run_results), "wall_s": run_s, "exit": rc,
                                 "evaluations_per_s": run_rate, "phases_sums_s": run_phases}
    (out / "throughput-rl.json").write_text(json.dumps(summary, indent=1))
    print("\n".join(bad) if bad else "\nall statuses as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
