"""The original suite's Triton solutions on the GPU (issue #13): one row per result with the
candidate's and the baselines' medians, the speedups vs eager and Inductor with their 95% CIs
and verdicts, then pass@1 and the geomeans. Reads one or more kbench results files (the shards of
one run; statistics come from kbench, nothing is recomputed). Exit 1 when a result is not `ok`.

Usage: python3 benchmarks/original/speedup_table.py RESULTS.json [RESULTS.json ...]
"""
import json
import math
import sys


def median_us(timing):
    return "-" if not timing else f'{timing["median_ms"] * 1000:.1f}'


def speedup(result, baseline):
    s = (result.get("speedups") or {}).get(baseline)
    if not s or s.get("value") is None:
        return "-"
    low, high = s.get("ci") or (None, None)
    ci = "" if low is None else f" [{low:.2f}-{high:.2f}]"
    return f'{s["value"]:.2f}x{ci} {s.get("verdict", "")}'.strip()


def geomean(values):
    values = [v for v in values if v]
    return "-" if not values else f"{math.exp(sum(math.log(v) for v in values) / len(values)):.2f}x ({len(values)})"


def main(paths):
    results, device = [], "?"
    for path in paths:
        doc = json.load(open(path))
        device = doc.get("environment", {}).get("device_name", device)
        results += doc["results"]
    results.sort(key=lambda r: r["problem"])
    print(f'{"problem":36} {"status":9} {"cand us":>9} {"eager us":>9} {"ind us":>9}  '
          f'{"vs eager [95% CI]":28} {"vs inductor [95% CI]":28}')
    for r in results:
        t = r["timings"]
        print(f'{r["problem"]:36.36} {r["status"]:9} {median_us(t["candidate"]):>9} {median_us(t["eager"]):>9} '
              f'{median_us(t["inductor"]):>9}  {speedup(r, "eager"):28} {speedup(r, "inductor"):28}')
    ok = [r for r in results if r["status"] == "ok"]
    print(f"pass@1 {len(ok)}/{len(results)} on {device}; geomean speedup vs eager "
          f'{geomean([r["speedup_vs_eager"] for r in ok])}, vs inductor {geomean([r["speedup_vs_inductor"] for r in ok])}')
    for r in results:
        if r["status"] != "ok":
            print(f'  {r["problem"]}: {r["status"]}: {(r.get("message") or "")[:200]}')
    return 0 if len(ok) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
