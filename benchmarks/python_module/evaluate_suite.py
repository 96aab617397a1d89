"""Every candidate of a suite through the `kbench` Python module (one Evaluator, one
evaluate_batch), as an RL trainer would call it: statuses, speedups with CIs, rewards, the time
split per result and the sustained rate. Exit 1 when a status is not the expected one (a file
named *wrong* must be a mismatch, every other file ok).

  PYTHONPATH=build/python python3 benchmarks/python_module/evaluate_suite.py \\
      configs/suites/smoke.yaml cuda 'benchmarks/solutions/smoke/{id}_*.py' [--workers N] [--json OUT]
"""
import argparse
import glob
import json
import sys
import time

import kbench


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite")
    parser.add_argument("device")
    parser.add_argument("candidates", help="glob of candidate files, {id} -> each problem id")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--checks", default=None)
    parser.add_argument("--reward", default="seed_paper")
    parser.add_argument("--json", default=None, help="write every result's to_dict() here")
    args = parser.parse_args()

    started = time.monotonic()
    ev = kbench.Evaluator(args.suite, devices=args.device, checks=args.checks, workers=args.workers,
                          reward=args.reward)
    startup_s = time.monotonic() - started
    batch, names = [], []
    for problem in ev.problems:
        for path in sorted(glob.glob(args.candidates.replace("{id}", problem))):
            batch.append(kbench.Request(problem, open(path).read()))
            names.append(path)
    if not batch:
        print(f"no candidate matches {args.candidates}", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = ev.evaluate_batch(batch)
    batch_s = time.monotonic() - started
    stats = ev.stats()
    ev.close()

    bad = 0
    print(f'{"problem":28} {"candidate":34} {"status":13} {"vs eager [95% CI]":>24} {"vs ind":>7} '
          f'{"reward":>7} {"queue s":>8} {"worker s":>8} {"lock s":>7}')
    for name, r in zip(names, results):
        expected = "mismatch" if "wrong" in name.rsplit("/", 1)[-1] else "ok"
        bad += r.status != expected
        eager = r.speedups.get("eager")
        cell = "-" if not eager else (f"{eager.value:.3f} [{eager.ci[0]:.3f},{eager.ci[1]:.3f}]" if eager.ci
                                      else f"{eager.value:.3f}")
        ind = r.speedup_vs_inductor
        reward = r.reward
        print(f'{r.problem_id:28} {name.rsplit("/", 1)[-1]:34} {r.status:13} {cell:>24} '
              f'{"-" if ind is None else f"{ind:.3f}":>7} {"-" if reward is None else f"{reward:.3f}":>7} '
              f'{r.time["queue_wait_s"]:8.2f} {r.time["worker_wall_s"]:8.2f} {r.time["gpu_lock_wait_s"]:7.2f}'
              + ("" if r.status == expected else f"   <- expected {expected}: {r.message[:80]}"))
    n = len(results)
    phases = stats["time_sums"]["phases_s"]
    print(f"\n{n} evaluations in {batch_s:.1f} s on {args.device} with {stats['slots']} worker slot(s): "
          f"{n / batch_s:.3f} evaluations/s (evaluator start-up {startup_s:.1f} s, not counted)")
    print("time split, mean per evaluation (s): " + ", ".join(
        f"{k} {v / n:.2f}" for k, v in sorted(stats["time_sums"].items()) if isinstance(v, (int, float))))
    print("worker phases, mean per evaluation (s): " + ", ".join(
        f"{k} {v / n:.2f}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1])))
    print(f"statuses: {json.dumps(stats['by_status'])}; unexpected: {bad}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump([r.to_dict() for r in results], out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
