"""Kept reference work against the full protocol on the same A/A candidates (aa.sh).

Usage: aa_compare.py KEEP_ON.json KEEP_OFF.json [NAME]
Per problem: the median over its candidates of speedup_vs_eager (and vs Inductor) with kept
work and with the full protocol, |kept - full| / full in percent (target <= 1%), how many jobs
kept their baselines and why the others did not, and the worker time per job spent in the
reference and timing phases. Exit 1 when a problem misses the 1% target.
"""
import json
import statistics
import sys

TARGET = 0.01


def by_problem(path):
    out = {}
    for r in json.load(open(path))["results"]:
        out.setdefault(r["problem"], []).append(r)
    return out


def median_speedup(results, key):
    values = [r[key] for r in results if r["status"] == "ok" and r.get(key)]
    return statistics.median(values) if values else None


def phases(results):
    total = []
    for r in results:
        p = r["diagnostics"].get("worker_timeline", {}).get("phases_s", {})
        total.append(p.get("reference", 0) + p.get("timing", 0) + p.get("baselines", 0))
    return statistics.mean(total) if total else 0


def main(on_path, off_path, name="aa"):
    on, off = by_problem(on_path), by_problem(off_path)
    print(f"\n{name}: kept reference work vs full protocol, A/A (target |diff| <= {100 * TARGET:.0f}%)")
    print(f'{"problem":40} {"kept":>4} {"eager kept":>10} {"eager full":>10} {"diff %":>7} '
          f'{"ind kept":>9} {"ind full":>9} {"diff %":>7} {"ref+time s kept/full":>21}')
    misses = 0
    fallbacks = {}
    for problem in sorted(on):
        kept_results, full_results = on[problem], off.get(problem, [])
        kept_jobs = sum(1 for r in kept_results if r.get("kept_reference", {}).get("kept"))
        for r in kept_results:
            reason = r.get("kept_reference", {}).get("fallback", "")
            if reason:
                fallbacks[reason[:90]] = fallbacks.get(reason[:90], 0) + 1
        cells = []
        for key in ("speedup_vs_eager", "speedup_vs_inductor"):
            k, f = median_speedup(kept_results, key), median_speedup(full_results, key)
            diff = abs(k - f) / f if k and f else None
            if key == "speedup_vs_eager" and (diff is None or diff > TARGET):
                misses += 1
            cells += ["-" if k is None else f"{k:.4f}", "-" if f is None else f"{f:.4f}",
                      "-" if diff is None else f"{100 * diff:.2f}"]
        print(f"{problem[:40]:40} {kept_jobs:>2}/{len(kept_results):<1} {cells[0]:>10} {cells[1]:>10} {cells[2]:>7} "
              f"{cells[3]:>9} {cells[4]:>9} {cells[5]:>7} {phases(kept_results):>10.2f}/{phases(full_results):<10.2f}")
    for reason, count in sorted(fallbacks.items(), key=lambda item: -item[1]):
        print(f"  not kept ({count}): {reason}")
    print(f"{name}: {len(on) - misses} of {len(on)} problems within {100 * TARGET:.0f}% "
          f"({'PASS' if misses == 0 else 'FAIL'})")
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
