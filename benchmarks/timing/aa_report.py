"""Summarises A/A results files (kbench's protocol vs the KernelBench-style mode).

Usage: aa_report.py aa-SUITE-PROTOCOL.json ...   (files written by aa_benchmark.sh)
For each protocol: how often a copy of the reference was called SAME, FASTER or off by more than
0.5% / 1% / 2%, the worst |1 - speedup|, and the wall time per problem.
"""
import json
import sys
from collections import defaultdict


def load(paths):
    by_protocol = defaultdict(list)
    for path in paths:
        doc = json.load(open(path))
        for r in doc["results"]:
            if r["status"] != "ok" or "eager" not in r["speedups"]:
                print(f"skipped {r['problem']}: {r['status']} {r['message'][:120]}")
                continue
            s = r["speedups"]["eager"]
            by_protocol[r["protocol"]["mode"]].append(
                {"problem": r["problem"], "speedup": s["value"], "ci": s["ci"], "verdict": s["verdict"],
                 "eager_ms": r["timings"]["eager"]["median_ms"], "n": r["timings"]["candidate"]["n"],
                 "timing_s": r["protocol"]["wall_s"], "job_s": r["wall_s"],
                 "converged": r["protocol"].get("converged")})
    return by_protocol


def main(paths):
    by_protocol = load(paths)
    print(f"\n{'protocol':12} {'problems':>8} {'SAME':>7} {'faster':>7} {'>0.5%':>7} {'>1%':>7} {'>2%':>7} "
          f"{'max|1-s|':>9} {'timing s/prob':>13} {'job s/prob':>10}")
    for protocol, rows in sorted(by_protocol.items()):
        n = len(rows)
        off = [abs(1 - r["speedup"]) for r in rows]
        # kbench: FASTER means the CI is above 1 (and >= 2%); KernelBench has no CI: point > 1.
        if protocol == "kernelbench":
            faster = sum(r["speedup"] > 1 for r in rows)
            same = "n/a"
        else:
            faster = sum(r["verdict"] == "FASTER" for r in rows)
            same = f"{sum(r['verdict'] == 'SAME' for r in rows) / n:.1%}"
        print(f"{protocol:12} {n:8d} {same:>7} {faster / n:7.1%} {sum(o > 0.005 for o in off) / n:7.1%} "
              f"{sum(o > 0.01 for o in off) / n:7.1%} {sum(o > 0.02 for o in off) / n:7.1%} {max(off):9.2%} "
              f"{sum(r['timing_s'] for r in rows) / n:13.2f} {sum(r['job_s'] for r in rows) / n:10.2f}")
    print(f"\n{'problem':28} " + " ".join(f"{p + ' speedup [CI] verdict':>44}" for p in sorted(by_protocol)))
    problems = sorted({r["problem"] for rows in by_protocol.values() for r in rows})
    index = {p: {r["problem"]: r for r in rows} for p, rows in by_protocol.items()}
    for problem in problems:
        cells = []
        for p in sorted(by_protocol):
            r = index[p].get(problem)
            if not r:
                cells.append(f"{'-':>44}")
                continue
            ci = f"[{r['ci'][0]:.4f}, {r['ci'][1]:.4f}]" if r["ci"] else ""
            cells.append(f"{r['speedup']:.4f} {ci:20} {r['verdict'] or '':9} n={r['n']:<5}".rjust(44))
        print(f"{problem:28} " + " ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:])
