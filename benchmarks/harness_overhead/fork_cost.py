"""What a fork server would cost per candidate, for comparison with kbench's pre-started workers.

A fork server imports torch and triton once, then forks one child per evaluation. This measures,
in such a parent: the fork itself (until the child runs), and in the child the first CUDA call
(context creation, which every evaluation pays whichever way it is started). Usage:
    python fork_cost.py [cpu|cuda] [N]
"""
import os
import statistics
import sys
import time

device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20

t0 = time.perf_counter()
import torch  # noqa: E402
import triton  # noqa: E402,F401
imports_s = time.perf_counter() - t0

fork_s, first_op_s = [], []
for _ in range(n):
    read_end, write_end = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        running = time.perf_counter()
        torch.ones(1, device=device).add_(1).sum().item()
        done = time.perf_counter()
        os.write(write_end, f"{running - start} {done - running}".encode())
        os._exit(0)
    os.close(write_end)
    data = os.read(read_end, 100).decode().split()
    os.close(read_end)
    os.waitpid(pid, 0)
    fork_s.append(float(data[0]))
    first_op_s.append(float(data[1]))

print(f"parent imports (torch, triton): {imports_s:.3f} s (paid once by a fork server)")
print(f"fork until the child runs: median {statistics.median(fork_s) * 1e3:.1f} ms over {n}")
print(f"first {device} op in the child (context creation): median {statistics.median(first_op_s):.3f} s")
