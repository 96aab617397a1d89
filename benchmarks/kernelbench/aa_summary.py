"""Statuses and A/A precision of a KernelBench A/A results file (aa_run.sh).

Usage: aa_summary.py aa.json
Prints: one line per problem (status, peak GPU memory of the worker's allocator, peak host RSS
of its process tree, wall time, grant and plan); the count per status and
the peak-memory distribution; over the ok results, the share of speedups vs eager within 0.5%
and 1% of 1, max |1 - s|, and the verdicts (the summary table comes last).
"""
import collections
import json
import sys


def gib(value):
    return "-" if value is None else f"{value / 2**30:.1f}"


def per_problem(results):
    print(f"\n{'problem':52} {'status':14} {'GPU GiB':>7} {'host GiB':>8} {'wall s':>7} {'grant':>6} plan")
    for r in results:
        memory = r.get("memory") or {}
        plan = (memory.get("plan") or {}).get("plan") or {}
        plan_text = (f"sets {plan['timing_sets']}, trials dev/host/dropped "
                     f"{plan['trials_on_device']}/{plan['trials_on_host']}/{plan['trials_dropped']}") if plan else ""
        if "memory_retry" in r.get("diagnostics", {}):
            plan_text += " [run again alone]"
        grant = "alone" if memory.get("gpu_alone") else gib(memory.get("gpu_budget_bytes"))
        print(f"{r['problem'][:52]:52} {r['status']:14} {gib(memory.get('gpu_peak_reserved_bytes')):>7} "
              f"{gib(memory.get('host_peak_rss_bytes')):>8} {r['wall_s']:7.1f} {grant:>6} {plan_text}")


def memory_distribution(results):
    gpu = sorted(r["memory"]["gpu_peak_reserved_bytes"] for r in results
                 if (r.get("memory") or {}).get("gpu_peak_reserved_bytes") is not None)
    host = sorted(r["memory"]["host_peak_rss_bytes"] for r in results if r.get("memory"))
    for name, values in (("GPU (allocator peak)", gpu), ("host (tree RSS peak)", host)):
        if not values:
            continue
        q = lambda f: values[min(len(values) - 1, int(f * len(values)))]
        print(f"peak {name}: median {gib(q(0.5))} GiB, p90 {gib(q(0.9))} GiB, max {gib(values[-1])} GiB "
              f"over {len(values)} results")
    oom = [r for r in results if "out_of_memory" in r.get("diagnostics", {})]
    alone = [r for r in results if "memory_retry" in r.get("diagnostics", {})]
    print(f"out of memory: {len(oom)}; run again alone: {len(alone)}")


def main(path):
    doc = json.load(open(path))
    results = doc["results"]
    per_problem(results)
    memory_distribution(results)
    statuses = collections.Counter(r["status"] for r in results)
    print(f"\n{len(results)} of {doc.get('planned_jobs', len(results))} planned jobs reported; complete={doc.get('complete')}")
    print("statuses: " + ", ".join(f"{s} {n}" for s, n in statuses.most_common()))
    for r in results:
        if r["status"] != "ok":
            degenerate = " [degenerate problem]" if r.get("degenerate") else ""
            print(f"  {r['problem']:58} {r['status']:14} {r['message'][:160]}{degenerate}")
    speedups = [r["speedups"]["eager"] for r in results if r["status"] == "ok" and "eager" in r.get("speedups", {})]
    if not speedups:
        print("no ok result with a speedup vs eager")
        return
    off = [abs(1 - s["value"]) for s in speedups]
    n = len(off)
    verdicts = collections.Counter(s["verdict"] for s in speedups)
    print(f"\nA/A precision over {n} ok results (speedup vs eager of the reference's copy):")
    print(f"  within 0.5%: {sum(o <= 0.005 for o in off)}/{n} = {sum(o <= 0.005 for o in off) / n:.1%}")
    print(f"  within 1%:   {sum(o <= 0.01 for o in off)}/{n} = {sum(o <= 0.01 for o in off) / n:.1%}")
    print(f"  max |1-s|:   {max(off):.2%}")
    print("  verdicts:    " + ", ".join(f"{v} {c}" for v, c in verdicts.most_common()))


if __name__ == "__main__":
    main(sys.argv[1])
