#!/usr/bin/env python3
"""Memory footprint of KernelBench problems as they are (issue #13: bounded memory).

For each problem file: build the model and one input set on the device, run one forward under
no_grad, and record the bytes of the inputs, of the outputs and the allocator's peak over
construction + call. These are the numbers the worker's memory plan needs (how many input sets and
expected outputs fit), measured without kbench in the way, so they are also a check on it.

Usage: footprint.py KB_DIR [--levels 1,2,3] [--device cuda] [--csv OUT.csv] [--budget-s 420]
One line per problem, then the distribution. Problems still unmeasured when the budget runs out are
listed as such (never silently dropped).
"""
import argparse
import csv
import importlib.util
import pathlib
import sys
import time

import torch


def tensor_bytes(value):
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(tensor_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(tensor_bytes(v) for v in value.values())
    return 0


def to_device(value, device):
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def measure(path, device):
    spec = importlib.util.spec_from_file_location(f"kb_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    with torch.no_grad():
        model = module.Model(*module.get_init_inputs()).to(device).eval()
        inputs = to_device(module.get_inputs(), device)
        after_setup = torch.cuda.memory_allocated() - base
        torch.cuda.synchronize()
        start = time.perf_counter()
        output = model(*inputs)
        torch.cuda.synchronize()
        call_ms = (time.perf_counter() - start) * 1e3
    row = {
        "inputs_mb": tensor_bytes(inputs) / 2**20,
        "params_mb": sum(p.numel() * p.element_size() for p in model.parameters()) / 2**20,
        "outputs_mb": tensor_bytes(output) / 2**20,
        "setup_mb": after_setup / 2**20,
        "peak_mb": (torch.cuda.max_memory_allocated() - base) / 2**20,
        "first_call_ms": call_ms,
    }
    del model, inputs, output
    torch.cuda.empty_cache()
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kb_dir", type=pathlib.Path)
    parser.add_argument("--levels", default="1,2,3")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--csv", type=pathlib.Path)
    parser.add_argument("--budget-s", type=float, default=420.0)
    args = parser.parse_args()
    root = args.kb_dir / "KernelBench" if (args.kb_dir / "KernelBench").is_dir() else args.kb_dir
    files = []
    for level in args.levels.split(","):
        files += sorted((root / f"level{level}").glob("*.py"),
                        key=lambda p: (level, int(p.name.split("_")[0])))
    started = time.monotonic()
    rows, unmeasured = [], []
    total = torch.cuda.get_device_properties(0).total_memory / 2**20
    for path in files:
        key = f"{path.parent.name}/{path.name}"
        if time.monotonic() - started > args.budget_s:
            unmeasured.append(key)
            continue
        try:
            row = measure(path, args.device)
            row["status"] = "ok"
        except torch.cuda.OutOfMemoryError as error:
            row = {"status": "oom", "error": str(error).splitlines()[0][:120]}
        except Exception as error:  # a problem file's own failure is data, not a crash
            row = {"status": "error", "error": f"{type(error).__name__}: {str(error)[:120]}"}
        row["problem"] = key
        rows.append(row)
        torch.cuda.empty_cache()
        if row["status"] == "ok":
            print(f"{key:60s} in {row['inputs_mb']:9.1f} MB  out {row['outputs_mb']:9.1f} MB  "
                  f"peak {row['peak_mb']:9.1f} MB  {row['first_call_ms']:8.2f} ms", flush=True)
        else:
            print(f"{key:60s} {row['status']}: {row['error']}", flush=True)
    if args.csv:
        fields = ["problem", "status", "inputs_mb", "params_mb", "outputs_mb", "setup_mb",
                  "peak_mb", "first_call_ms", "error"]
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            for row in rows:
                writer.writerow({k: row.get(k, "") for k in fields})
    ok = sorted(r["peak_mb"] for r in rows if r["status"] == "ok")
    print(f"\nfootprint: {len(ok)} measured, {sum(r['status'] != 'ok' for r in rows)} failed, "
          f"{len(unmeasured)} unmeasured (budget); device memory {total / 1024:.0f} GiB")
    if ok:
        def q(f):
            return ok[min(len(ok) - 1, int(f * len(ok)))]
        print(f"peak MB: median {q(0.5):.0f}  p90 {q(0.9):.0f}  p99 {q(0.99):.0f}  max {ok[-1]:.0f}")
        for limit_gb in (1, 4, 16, 32):
            share = sum(p > limit_gb * 1024 for p in ok) / len(ok)
            print(f"  peak > {limit_gb:2d} GiB: {share:.0%}")
        big = sorted((r for r in rows if r["status"] == "ok"), key=lambda r: -r["peak_mb"])[:12]
        print("largest: " + ", ".join(f"{r['problem']} {r['peak_mb'] / 1024:.1f} GiB" for r in big))
    for key in unmeasured:
        print(f"unmeasured: {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
