"""Prints the harness-overhead table of a results file written by run.sh."""
import json
import statistics
import sys

doc = json.load(open(sys.argv[1]))
run_wall = float(sys.argv[2])
rows = []
for r in doc["results"]:
    d = r.get("diagnostics", {})
    t = d.get("worker_timeline", {})
    rows.append((r["wall_s"], t.get("startup_s", float("nan")), t.get("evaluate_s", float("nan")),
                 d.get("harness_overhead_s", float("nan")), d.get("held_s", 0.0), r["status"]))
bad = [r for r in rows if r[5] != "ok"]
cols = list(zip(*rows))
def stat(values):
    return f"median {statistics.median(values):6.3f} s  mean {statistics.fmean(values):6.3f} s  max {max(values):6.3f} s"
print(f"device {doc['environment'].get('device_name', '?')}, {len(rows)} jobs, {len(bad)} not ok, "
      f"run wall {run_wall:.1f} s ({run_wall / max(1, len(rows)):.2f} s per job)")
print(f"job wall (controller)        {stat(cols[0])}")
print(f"worker start-up (imports)    {stat(cols[1])}")
print(f"evaluation (compile+device)  {stat(cols[2])}")
print(f"harness overhead per job     {stat(cols[3])}")
# What a long run pays per candidate: the steady-state interval between job ends (the first job,
# which nothing was started ahead of, excluded) minus the evaluation proper (its waits for the
# GPU lock excluded too: a previous worker's teardown holds the lock and must count here).
ends = sorted(r["schedule"]["end_unix_s"] for r in doc["results"] if r.get("schedule"))
if len(ends) >= 3:
    pace = (ends[-1] - ends[0]) / (len(ends) - 1)
    work = [r["diagnostics"]["worker_timeline"]["evaluate_s"] - r["protocol"].get("gpu_lock_wait_s", 0.0)
            for r in doc["results"][1:] if "worker_timeline" in r.get("diagnostics", {})]
    print(f"steady state: one job every {pace:.3f} s; evaluation without lock waits "
          f"{statistics.fmean(work):.3f} s; harness overhead per job {pace - statistics.fmean(work):.3f} s")
sys.exit(1 if bad else 0)
