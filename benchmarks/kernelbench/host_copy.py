"""How fast an expected output reaches pageable host memory, and what would make it faster.

Why: on full-size KernelBench (H100, 2026-12-05) `reference.expected_to_host` took 10-12 s of a
4-6 GiB level-1 problem's ~20 s (about 1.2 GB/s), the largest share of the 250-problem A/A run's
wall time. kbench keeps expected outputs in *pageable* memory on purpose (pinned memory is mapped
into the device's address space, in reach of a candidate's kernels: docs/memory.md). This measures,
for one device tensor of --gib GiB, the device-to-host copy into:
  fresh      a new pageable tensor (what TrialBuilder::run_reference does: `.to("cpu")`)
  faulted    a pageable tensor whose pages were touched first (by torch's threads)
  thp        fresh, but allocated with THP_MEM_ALLOC_ENABLE=1 (torch's 2 MiB-aligned huge pages;
             set for the whole process, so this row runs in a child process)
  staged     a fresh pageable tensor filled through a 256 MiB pinned staging buffer in chunks,
             the staging buffer freed afterwards (the expected values never stay device-mapped)
  pinned     a pinned tensor (for scale only: not an option for expected outputs)
Each row: seconds and GB/s, median of --repeat. A GPU machine, seconds, no kbench build:
  python3 benchmarks/kernelbench/host_copy.py --gib 4
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import torch

STAGE_BYTES = 256 << 20


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        del out
    return statistics.median(times)


def fresh(src):
    return src.to("cpu")


def faulted(src):
    dst = torch.empty(src.shape, dtype=src.dtype)
    dst.fill_(0)  # page faults on torch's intra-op threads, before the copy
    dst.copy_(src)
    return dst


def staged(src):
    dst = torch.empty(src.numel(), dtype=src.dtype)
    flat = src.reshape(-1)
    step = max(1, STAGE_BYTES // src.element_size())
    stage = torch.empty(step, dtype=src.dtype, pin_memory=True)
    for begin in range(0, flat.numel(), step):
        n = min(step, flat.numel() - begin)
        stage[:n].copy_(flat[begin:begin + n])  # DMA into pinned memory, synchronous
        dst[begin:begin + n].copy_(stage[:n])  # host memcpy on torch's threads
    del stage
    return dst.view(src.shape)


def pinned(src):
    dst = torch.empty(src.shape, dtype=src.dtype, pin_memory=True)
    dst.copy_(src)
    return dst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="run one row (used for the thp child)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("host_copy.py: needs a CUDA device")
    src = torch.rand(int(args.gib * (1 << 30)) // 4, device="cuda")
    rows = {"fresh": fresh, "faulted": faulted, "staged": staged, "pinned": pinned}
    if args.only:
        print(f"{timed(lambda: rows[args.only](src), args.repeat):.4f}")
        return
    nbytes = src.numel() * 4
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{nbytes / (1 << 30):.1f} GiB, THP {open('/sys/kernel/mm/transparent_hugepage/enabled').read().strip()}")
    results = {name: timed(lambda fn=fn: fn(src), args.repeat) for name, fn in rows.items()}
    child = subprocess.run([sys.executable, __file__, "--gib", str(args.gib), "--repeat", str(args.repeat),
                            "--only", "fresh"], env={**os.environ, "THP_MEM_ALLOC_ENABLE": "1"},
                           capture_output=True, text=True)
    if child.returncode == 0:
        results["thp"] = float(child.stdout.strip().splitlines()[-1])
    else:
        print("thp row failed:", child.stderr.strip()[-300:])
    print(f"{'into':10} {'seconds':>8} {'GB/s':>7}")
    for name, seconds in results.items():
        print(f"{name:10} {seconds:8.3f} {nbytes / seconds / 1e9:7.2f}")


if __name__ == "__main__":
    main()
