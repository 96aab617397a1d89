"""The short table of the RL throughput benchmark (scripts/device-test.sh stage throughput1):
rl_batch.py's throughput-rl.json and, when given, kernelbench_eval.py's JSON.

  python3 benchmarks/throughput/rl_table.py OUT/throughput-rl.json [OUT/kernelbench.json]

kbench's wall per candidate is the batch's wall over its size (sustained, every kind of candidate
counted); KernelBench's is one process per candidate, run one after another as its scripts do,
per problem, then the median over the problems. Exit 1 when a target of issue #14 is missed
(>= 1 evaluation/s; >= 10x less wall per candidate than KernelBench on the median problem).
"""
import json
import statistics
import sys


def main() -> int:
    rl = json.load(open(sys.argv[1]))
    kb = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
    ev = rl["evaluator"]
    per_candidate = ev["wall_s"] / rl["batch"]
    print(f'RL batch on {rl.get("device_name") or rl["device"]}: {rl["batch"]} candidates {json.dumps(rl["kinds"])}')
    print(f'{"":34} {"evaluations/s":>13} {"s/candidate":>11}  statuses')
    label = "Evaluator, timing=%s, %d slots" % (ev["timing"], ev["slots"])
    print(f'{label:34} {ev["evaluations_per_s"]:13.3f} {per_candidate:11.2f}  {json.dumps(ev["by_status"])}')
    run = rl.get("kbench_run")
    if run:
        rate = run["evaluations_per_s"]
        print(f'{"kbench run, defaults":34} {rate:13.3f} {1 / rate if rate else float("nan"):11.2f}  '
              f'({run["evaluations"]} of {rl["batch"]} within the budget)')
        if rate:
            print(f'  Evaluator (rl) vs kbench run (defaults): x{ev["evaluations_per_s"] / rate:.2f}')
    phases = ev.get("phases_sums_s", {})
    if phases:
        total = sum(phases.values())
        print("  worker phases, share of their sum: " + ", ".join(
            f"{k} {100 * v / total:.0f}%" for k, v in sorted(phases.items(), key=lambda kv: -kv[1])[:8]))
    missed = []
    if ev["evaluations_per_s"] < 1.0:
        missed.append(f'{ev["evaluations_per_s"]:.3f} evaluations/s < 1 per GPU')
    if kb and kb.get("median_problem_wall_s"):
        kbench_walls = {}
        for r in rl["results"]:
            if r["kind"] == "honest" and r["worker_wall_s"] is not None:
                kbench_walls.setdefault(r["problem"], []).append(r["worker_wall_s"])
        print(f'\n{"problem":24} {"KernelBench s":>13} {"kbench worker s":>15} {"kbench sustained s":>18}')
        for problem, wall in sorted(kb["per_problem_median_wall_s"].items()):
            worker = statistics.median(kbench_walls[problem]) if problem in kbench_walls else float("nan")
            print(f"{problem:24} {wall:13.2f} {worker:15.2f} {per_candidate:18.2f}")
        ratio = kb["median_problem_wall_s"] / per_candidate
        print(f'median problem: KernelBench {kb["median_problem_wall_s"]:.2f} s per candidate, kbench '
              f'{per_candidate:.2f} s sustained: x{ratio:.1f} less wall per candidate'
              + (f' (KernelBench ran with stand-ins for {", ".join(kb["stand_ins"])})' if kb.get("stand_ins") else ""))
        if ratio < 10:
            missed.append(f"x{ratio:.1f} < 10x less wall per candidate than KernelBench")
    print("targets met" if not missed else "targets missed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
