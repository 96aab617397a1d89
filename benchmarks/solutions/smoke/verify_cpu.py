"""Scratch check of the smoke suite: every candidate matches its problem, and the
deliberately wrong softmax fails.

CPU (default, Triton interpreter, sizes from cpu_sizes.yaml):
    TRITON_INTERPRET=1 python benchmarks/solutions/smoke/verify_cpu.py
GPU (the problems' own sizes):
    python benchmarks/solutions/smoke/verify_cpu.py --cuda
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import yaml

sys.dont_write_bytecode = True  # keep __pycache__ out of the benchmark folders

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems" / "smoke"
SOLUTIONS = ROOT / "solutions" / "smoke"
IDS = ["01_leaky_relu_scale", "02_softmax", "03_matmul", "04_layernorm",
       "05_bias_gelu_residual", "06_attention_scores"]
ATOL = RTOL = 1e-4


def load(path):
    spec = importlib.util.spec_from_file_location(f"_kb_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build(prob, cand, seed, dev):
    torch.manual_seed(seed)
    init = prob.get_init_inputs()
    ref = prob.Model(*init)
    torch.manual_seed(seed)
    new = cand.ModelNew(*init)
    rs, ns = ref.state_dict(), new.state_dict()
    same = rs.keys() == ns.keys() and all(rs[k].shape == ns[k].shape for k in rs)
    if same:
        # Seeded construction alone must already agree (e.g. 05's randn bias) ...
        assert all(torch.equal(rs[k], ns[k]) for k in rs), "seeded params differ"
        # ... then perturb so ones/zeros defaults (LayerNorm) can't hide a bug.
        with torch.no_grad():
            for p in ref.parameters():
                p.add_(0.5 * torch.randn_like(p))
        new.load_state_dict(ref.state_dict())
    return ref.to(dev), new.to(dev)


def inputs_for(prob, seed, dev, strided):
    torch.manual_seed(seed + 100)
    with torch.device(dev):
        xs = prob.get_inputs()
    if strided:  # same values, non-contiguous strides
        xs = [x.transpose(-1, -2).contiguous().transpose(-1, -2) if x.dim() >= 2 else x
              for x in xs]
    return xs


def timed(fn, dev):
    if dev == "cuda":
        import triton.testing
        return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    fn()
    ts = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def check(pid, cand_file, sizes, dev, seeds, expect_pass):
    prob = load(PROBLEMS / f"{pid}.py")
    cand = load(SOLUTIONS / cand_file)
    for name, val in sizes.items():
        assert hasattr(prob, name), f"{pid}: no constant {name}"
        setattr(prob, name, val)
    ok_all = True
    for seed in seeds:
        for strided in (False, True):
            ref, new = build(prob, cand, seed, dev)
            xs = inputs_for(prob, seed, dev, strided)
            with torch.no_grad():
                want = ref(*xs)
                got = new(*xs)
            ok = (got.shape == want.shape and torch.allclose(got, want, atol=ATOL, rtol=RTOL))
            err = (got - want).abs().max().item() if got.shape == want.shape else float("inf")
            ok_all &= ok
            tag = "strided" if strided else "contig "
            line = f"  {cand_file:34s} seed={seed} {tag} max_abs_err={err:.3e} allclose={ok}"
            if not strided:
                with torch.no_grad():
                    t_new = timed(lambda: new(*xs), dev)
                    t_ref = timed(lambda: ref(*xs), dev)
                line += f"  cand={t_new:.2f}ms ref={t_ref:.2f}ms"
            print(line, flush=True)
            del xs, want, got
    passed = ok_all == expect_pass
    print(f"{'PASS' if passed else 'FAIL'} {cand_file} ({'expected match' if expect_pass else 'expected mismatch'})")
    return passed


def gpu_size_report():
    # meta device: shapes only, nothing is allocated.
    print("GPU-default sizes (from meta tensors):")
    for pid in IDS:
        prob = load(PROBLEMS / f"{pid}.py")
        with torch.device("meta"):
            xs = prob.get_inputs()
        desc = ", ".join(f"{tuple(x.shape)}={x.numel() * x.element_size() / 2**20:.0f}MiB" for x in xs)
        print(f"  {pid:24s} init={prob.get_init_inputs()} inputs: {desc}")


def interpreter_loops_ok():
    # triton<=3.6's interpreter breaks on runtime-bound loops under numpy>=2.4
    # (triton-lang/triton#9171); fail early with the cause instead of mid-suite.
    import triton
    import triton.language as tl

    @triton.jit
    def _probe(out_ptr, n):
        acc = 0
        for _ in range(0, n):
            acc += 1
        tl.store(out_ptr, acc)

    out = torch.zeros(1, dtype=torch.int32)
    try:
        _probe[(1,)](out, 3)
    except Exception as e:  # noqa: BLE001 - any failure here means the same thing
        import numpy
        print(f"Triton interpreter cannot run loops (numpy {numpy.__version__}): {e!r}\n"
              "use numpy<2.4 (triton-lang/triton#9171)")
        return False
    return out.item() == 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda", action="store_true", help="run on the GPU at the problems' own sizes")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    dev = "cuda" if args.cuda else "cpu"
    if dev == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        sys.exit("set TRITON_INTERPRET=1 for the CPU run")
    if dev == "cpu" and not interpreter_loops_ok():
        sys.exit(2)
    cpu_sizes = yaml.safe_load((PROBLEMS / "cpu_sizes.yaml").read_text())
    seeds = list(range(args.seeds))
    if dev == "cpu":
        gpu_size_report()
    results = []
    for pid in IDS:
        sizes = cpu_sizes[pid] if dev == "cpu" else {}
        print(f"{pid} sizes={sizes or 'problem defaults'}")
        results.append(check(pid, f"{pid}_triton.py", sizes, dev, seeds, True))
    sizes = cpu_sizes["02_softmax"] if dev == "cpu" else {}
    print(f"02_softmax (wrong candidate) sizes={sizes or 'problem defaults'}")
    results.append(check("02_softmax", "02_softmax_wrong.py", sizes, dev, seeds, False))
    n_ok = sum(results)
    print(f"{n_ok} passed, {len(results) - n_ok} failed")
    sys.exit(0 if n_ok == len(results) else 1)


if __name__ == "__main__":
    main()
