"""Fidelity of kbench's cold-mode medians against Nsight Compute's gpu__time_duration.

  KBENCH_NCU_ORDER=order.json ncu --profile-from-start off --clock-control none \
      --cache-control all --csv --metrics gpu__time_duration.sum \
      python3 ncu_fidelity.py profile SUITE.yaml > ncu.csv
  python3 ncu_fidelity.py compare ncu.csv aa-SUITE-cold.json order.json

`profile` runs each problem's reference forward 5 times (default GPU sizes, inputs made on the
GPU) inside a profiler range, with a marker kernel (torch.cuda._sleep) before each problem, so
the CSV can be split per problem. `compare` keeps problems whose forward is exactly one kernel
and compares ncu's median to kbench's eager median from the A/A results (cold mode).
"""
import csv
import importlib.util
import io
import json
import os
import statistics
import sys

REPEATS = 5


def problems_of(suite_yaml):
    import yaml  # available where torch is
    doc = yaml.safe_load(open(suite_yaml))
    base = os.path.dirname(os.path.abspath(suite_yaml))
    return [(p["id"], os.path.join(base, p["file"])) for p in doc["problems"]]


def profile(suite_yaml):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    order = []
    for pid, path in problems_of(suite_yaml):
        spec = importlib.util.spec_from_file_location("p_" + pid, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with torch.device("cuda"), torch.no_grad():
            model = module.Model(*module.get_init_inputs())
            inputs = module.get_inputs()
            for _ in range(3):
                model(*inputs)
            torch.cuda.synchronize()
            torch.cuda.profiler.start()
            torch.cuda._sleep(1000)  # marker kernel
            for _ in range(REPEATS):
                model(*inputs)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
        order.append(pid)
        del model, inputs
        torch.cuda.empty_cache()
    json.dump(order, open(os.environ.get("KBENCH_NCU_ORDER", "ncu-order.json"), "w"))


def to_us(value, unit):
    value = float(value.replace(",", ""))
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
             "s": 1e6, "second": 1e6}
    return value * scale[unit]


def compare(ncu_csv, results_json, order_json):
    rows = [r for r in csv.DictReader(io.StringIO("".join(
        line for line in open(ncu_csv) if line.startswith('"'))))
            if r.get("Metric Name") == "gpu__time_duration.sum"]
    order = json.load(open(order_json))
    groups, current = [], None
    for r in rows:
        if "sleep" in r["Kernel Name"] or "spin" in r["Kernel Name"]:
            current = []
            groups.append(current)
        elif current is not None:
            current.append((r["Kernel Name"], to_us(r["Metric Value"], r["Metric Unit"])))
    results = {r["problem"]: r for r in json.load(open(results_json))["results"] if r["timings"]["eager"]}
    print(f"{'problem':28} {'kernels':>7} {'ncu us':>10} {'kbench us':>10} {'diff':>8} "
          f"{'overhead us':>11} {'diff - overhead':>15}")
    worst = worst_corrected = 0.0
    for pid, kernels in zip(order, groups):
        per_forward = len(kernels) / REPEATS
        if per_forward != 1 or pid not in results:
            print(f"{pid:28} {per_forward:7.1f} {'(not single-kernel; skipped)':>30}")
            continue
        ncu_us = statistics.median(t for _, t in kernels)
        kbench_us = results[pid]["timings"]["eager"]["median_ms"] * 1000
        # The empty timed region (event pair behind the blocking kernel) that every sample
        # contains; kbench reports it per job as protocol.empty_overhead_ms.
        overhead_us = results[pid]["protocol"].get("empty_overhead_ms", 0) * 1000
        diff = kbench_us / ncu_us - 1
        corrected = (kbench_us - overhead_us) / ncu_us - 1
        if ncu_us >= 20:
            worst = max(worst, abs(diff))
            worst_corrected = max(worst_corrected, abs(corrected))
        print(f"{pid:28} {1:7d} {ncu_us:10.1f} {kbench_us:10.1f} {diff:+8.2%} {overhead_us:11.2f} {corrected:+15.2%}")
    print(f"worst |diff| for kernels >= 20 us: {worst:.2%} (minus the event-pair overhead: {worst_corrected:.2%})")


if __name__ == "__main__":
    if sys.argv[1] == "profile":
        profile(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3], sys.argv[4])
