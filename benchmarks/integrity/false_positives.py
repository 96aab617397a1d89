"""Zero false positives: every honest candidate shipped with kbench must pass every integrity
check (issue #5). Reads kbench results files (run with the default `--checks strict`) and prints
one row per candidate: status, check level, the checks' cost, the custom-kernel share of GPU time,
the job's wall time, how much of it waited for the GPU lock and its longest unbroken shared hold of
the lock (what other jobs' timers waited behind), and any review flags; under a row that waited a
second or more, what it waited on (protocol.gpu_lock_waited_on: the holder named by the controller);
under an isolated row, its timing witness (calls K, groups, window, the rest the reference measured,
the claimed median: what docs/threat-model.md's rule judged), and the first run's window where it
was exceeded and the job ran again (exec/witness_retry.hpp), and the window's steps as the candidate
worker timed them (inputs, calls, commits, reveal round trips, openings).
Candidates named *_wrong.py are the shipped wrong answers: they must be
`mismatch`, never `rejected`. Exit status 1 when any candidate got another verdict.

Usage: python3 benchmarks/integrity/false_positives.py RESULTS.json [RESULTS.json ...]
"""
import json
import statistics
import sys


def expected(candidate):
    return "mismatch" if candidate.endswith("_wrong.py") else "ok"


def main(paths):
    bad, costs, rows = [], [], []
    device = "?"
    for path in paths:
        doc = json.load(open(path))
        device = doc.get("environment", {}).get("device_name", device)
        for r in doc["results"]:
            d = r.get("diagnostics", {})
            share = d.get("integrity_notes", {}).get("kernel_share", {}).get("share")
            cost = d.get("integrity_cost_s")
            if cost is not None:
                costs.append(cost)
            name = f'{r["problem"]}/{r["candidate"]}'
            lock = (r.get("protocol") or {}).get("gpu_lock_wait_s")
            hold = (r.get("protocol") or {}).get("gpu_lock_longest_shared_s")
            rows.append((name, r["status"], d.get("checks", "-"),
                         "-" if cost is None else f"{cost:.2f} s",
                         "-" if share is None else f"{share:.0%}", ",".join(d.get("flags", [])) or "-",
                         f'{r.get("wall_s", 0):.0f} s', "-" if lock is None else f"{lock:.0f} s",
                         "-" if hold is None else f"{hold:.0f} s",
                         (r.get("protocol") or {}).get("gpu_lock_waited_on") or {},
                         (d.get("isolation") or {}).get("witness"),
                         ((r.get("timings") or {}).get("candidate") or {}).get("median_ms"),
                         d.get("witness_first_window"),
                         {k.split(".witness_")[1]: v for k, v in
                          ((d.get("worker_timeline") or {}).get("steps_s") or {}).items() if ".witness_" in k}))
            if r["status"] != expected(r["candidate"]):
                bad.append(f'{name}: {r["status"]} (want {expected(r["candidate"])}): {r["message"][:200]}')
    print(f"{'candidate':52} {'status':9} {'checks':8} {'cost':>8} {'share':>6} {'wall':>6} {'lock':>6} {'hold':>6}  flags")
    for row in rows:
        print(f"{row[0]:52.52} {row[1]:9} {row[2]:8} {row[3]:>8} {row[4]:>6} {row[6]:>6} {row[7]:>6} {row[8]:>6}  {row[5]}")
        waited_on = [f"{holder} {seconds:.0f} s" for holder, seconds in row[9].items() if seconds >= 1]
        if waited_on:
            print(f"    waited on: {'; '.join(waited_on)}")
        witness, median_ms = row[10], row[11]
        if witness:
            print(f"    witness: K {witness.get('calls')}, {witness.get('groups')} groups, window "
                  f"{witness.get('wall_s', 0):.4f} s, rest {witness.get('overhead_s', 0):.4f} s, claimed median "
                  + ("-" if median_ms is None else f"{median_ms:.4f}") + " ms")
            if row[13]:  # the candidate's own account of its window (worker_timeline.steps_s)
                print("    window steps (candidate's clock): "
                      + ", ".join(f"{k} {v:.4f} s" for k, v in sorted(row[13].items())))
        if row[12]:
            print(f"    first run's window exceeded (the job ran again): K {row[12].get('calls')}, window "
                  f"{row[12].get('wall_s', 0):.4f} s, rest {row[12].get('overhead_s', 0):.4f} s")
    if costs:
        print(f"check cost per candidate on {device}: median {statistics.median(costs):.2f} s, "
              f"max {max(costs):.2f} s ({len(costs)} candidates)")
    honest = sum(1 for row in rows if not row[0].endswith("_wrong.py"))
    print("\n".join(bad) if bad else
          f"zero false positives: {honest} honest candidates ok, wrong ones mismatch, on {device}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
