"""Statuses and A/A precision of a KernelBench A/A results file (aa_run.sh).

Usage: aa_summary.py aa.json
Prints: the count per status and each non-ok result with its message; over the ok results, the
share of speedups vs eager within 0.5% and 1% of 1, max |1 - s|, and the verdicts.
"""
import collections
import json
import sys


def main(path):
    doc = json.load(open(path))
    results = doc["results"]
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
