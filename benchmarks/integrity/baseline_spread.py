#!/usr/bin/env python3
"""How far honest candidates move their baselines (the data behind kCpuBaselineRule and the CUDA
bounds, lib/integrity/baseline_cross_check.hpp).

Usage: baseline_spread.py RESULTS.json... [--top N]

For every result, each baseline's median beside the candidate against its trusted figure: the
same process's run before the candidate's import (`protocol.pre_import_median_ms`, "pre") and,
for isolated candidates, the reference worker's own run (`integrity_notes.baseline_cross_check`,
"apart"). Prints the widest ratios, then the count and the median ratio.
"""
import argparse
import json
from statistics import median


def comparisons(path):
    for x in json.load(open(path))["results"]:
        pre = (x.get("protocol") or {}).get("pre_import_median_ms") or {}
        notes = (x.get("diagnostics") or {}).get("integrity_notes", {}).get("baseline_cross_check") or {}
        timings = x.get("timings") or {}
        for name in ("eager", "inductor"):
            beside = (timings.get(name) or {}).get("median_ms")
            if name in pre and beside:
                yield beside / pre[name], pre[name], beside, "pre", name, x
            if name in notes:
                n = notes[name]
                yield n["reported_median_ms"] / n["trusted_median_ms"], n["trusted_median_ms"], n["reported_median_ms"], "apart", name, x


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    rows = sorted((row for path in args.results for row in comparisons(path)), key=lambda r: -r[0])
    for ratio, trusted, beside, kind, name, x in rows[: args.top]:
        print(f"{ratio:6.3f}x  {name:8} trusted {trusted:9.4g} ms  beside {beside:9.4g} ms  "
              f"(+{beside - trusted:.4g} ms)  {kind:5} {x['problem']} / {x['candidate'].rsplit('/', 1)[-1]} {x['status']}")
    if rows:
        print(f"comparisons {len(rows)}, median ratio {median(r[0] for r in rows):.3f}, "
              f"widest {rows[0][0]:.3f}x, largest excess {max(r[2] - r[1] for r in rows):.4g} ms")


if __name__ == "__main__":
    main()
