"""Scratch check of the level1 suite: every Triton candidate matches its problem.

CPU (default; Triton interpreter; sizes from configs/suites/level1.yaml `sizes.cpu`):
    TRITON_INTERPRET=1 python benchmarks/solutions/level1/verify_cpu.py
GPU (the problems' own sizes):
    python benchmarks/solutions/level1/verify_cpu.py --cuda

The CPU run also checks, on the meta device (nothing allocated), that the problems' GPU
defaults give the intended tensor shapes, and re-runs the reductions at their full GPU
reduction length (few rows) to see how much of the fp32 tolerance the rounding uses.
"""
import argparse
import glob
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

import torch
import yaml

sys.dont_write_bytecode = True  # keep __pycache__ out of the benchmark folders

REPO = Path(__file__).resolve().parents[3]
SUITE = REPO / "configs" / "suites" / "level1.yaml"
ATOL = RTOL = 1e-4  # the harness's fp32 defaults
SEEDS = [1000 + 17 * i for i in range(3)]  # the harness's trial_seed(i)

# Intended GPU-default shapes: (inputs, outputs), plus FLOPs where compute-bound.
GPU_EXPECTED = {
    "01_gelu_tanh": ([(8192, 8192)], [(8192, 8192)]),
    "02_silu_gate": ([(8192, 8192)], [(8192, 4096)]),
    "03_clamped_softplus": ([(64, 1024, 1024)], [(64, 1024, 1024)]),
    "04_sum_dim1": ([(32, 512, 4096)], [(32, 4096)]),
    "05_max_dim": ([(32768, 2048)], [(32768,), (32768,)]),
    "06_mean_var": ([(16384, 4096)], [(16384,), (16384,)]),
    "07_l2_row_norm": ([(32768, 2048)], [(32768, 2048)]),
    "08_cumsum": ([(32768, 2048)], [(32768, 2048)]),
    "09_log_softmax_channels": ([(32, 128, 128, 128)], [(32, 128, 128, 128)]),
    "10_rmsnorm": ([(8, 2048, 4096)], [(8, 2048, 4096)]),
    "11_bmm": ([(64, 1024, 512), (64, 512, 1024)], [(64, 1024, 1024)]),
    "12_linear_bias_relu": ([(8192, 2048)], [(8192, 4096)]),
    "13_nchw_to_nhwc": ([(32, 64, 128, 256)], [(32, 128, 256, 64)]),
    "14_embedding_gather": ([(16, 2048)], [(16, 2048, 1024)]),
    "15_cross_entropy": ([(4096, 32000), (4096,)], [()]),
    "16_conv2d_3x3": ([(32, 16, 256, 256)], [(32, 32, 256, 256)]),
    "17_avg_pool2d": ([(16, 64, 256, 256)], [(16, 64, 128, 128)]),
    "18_depthwise_conv1d": ([(32, 512, 4096)], [(32, 512, 4096)]),
}
GPU_FLOPS = {
    "11_bmm": 2 * 64 * 1024 * 1024 * 512,
    "12_linear_bias_relu": 2 * 8192 * 2048 * 4096,
    "16_conv2d_3x3": 2 * 32 * 32 * 256 * 256 * 16 * 9,
}
# Rough H200 roofline for the estimate: achievable HBM bandwidth and fp32 (non-TF32) FMA rate.
HBM_BYTES_PER_S = 4.0e12
FP32_FLOPS_PER_S = 50e12

# Full GPU reduction / contraction length, few independent rows (interpreter-sized).
FULL_REDUCTION_SIZES = {
    "04_sum_dim1": {"BATCH": 2, "REDUCE": 512, "COLS": 300},
    "05_max_dim": {"ROWS": 8, "COLS": 2048},
    "06_mean_var": {"ROWS": 16, "COLS": 4096},
    "07_l2_row_norm": {"ROWS": 16, "COLS": 2048},
    "08_cumsum": {"ROWS": 64, "LEN": 2048},
    "09_log_softmax_channels": {"BATCH": 1, "CHANNELS": 128, "HEIGHT": 8, "WIDTH": 16},
    "10_rmsnorm": {"BATCH": 1, "SEQ": 16, "HIDDEN": 4096},
    "11_bmm": {"BATCH": 1, "M": 128, "N": 128, "K": 512},
    "12_linear_bias_relu": {"TOKENS": 128, "IN_FEATURES": 2048, "OUT_FEATURES": 128},
    "15_cross_entropy": {"BATCH": 16, "CLASSES": 32000},
    "16_conv2d_3x3": {"BATCH": 1, "C_IN": 16, "C_OUT": 32, "HEIGHT": 16, "WIDTH": 16},
}


def load(path):
    spec = importlib.util.spec_from_file_location(f"_kb_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_suite():
    suite = yaml.safe_load(SUITE.read_text())
    base = SUITE.parent
    out = []
    for p in suite["problems"]:
        pats = p.get("candidates", suite["candidates"])
        pats = [pats] if isinstance(pats, str) else pats
        cands = sorted({f for pat in pats
                        for f in glob.glob(str(base / pat.replace("{id}", p["id"])))})
        out.append((p["id"], (base / p["file"]).resolve(), [Path(c) for c in cands],
                    p.get("sizes", {}).get("cpu", {})))
    return out


def set_sizes(prob, sizes):
    for name, val in sizes.items():
        assert hasattr(prob, name), f"no constant {name}"
        setattr(prob, name, val)


def build(prob, cand, seed, dev):
    torch.manual_seed(seed)
    init = prob.get_init_inputs()
    ref = prob.Model(*init)
    torch.manual_seed(seed)
    new = cand.ModelNew(*init)
    rs, ns = ref.state_dict(), new.state_dict()
    if rs and rs.keys() == ns.keys() and all(rs[k].shape == ns[k].shape for k in rs):
        # Seeded construction alone must already agree ...
        assert all(torch.equal(rs[k], ns[k]) for k in rs), "seeded params differ"
        # ... then perturb so that simple defaults (ones, zeros) can't hide a bug.
        with torch.no_grad():
            for p in ref.parameters():
                p.add_(0.5 * torch.randn_like(p))
        new.load_state_dict(ref.state_dict())
    else:
        assert not rs and not ns, "candidate parameters do not mirror the reference"
    return ref.to(dev), new.to(dev)


def inputs_for(prob, seed, dev, strided):
    torch.manual_seed(seed + 1)  # as the harness: inputs under seed + 1
    with torch.device(dev):
        xs = prob.get_inputs()
    if strided:  # same values, non-contiguous strides
        xs = [x.transpose(-1, -2).contiguous().transpose(-1, -2) if x.dim() >= 2 else x
              for x in xs]
    return xs


def compare(got, want):
    """(ok, max_abs_err, tol_used): tol_used = max |got - want| / (atol + rtol |want|)."""
    if isinstance(want, torch.Tensor):
        if not isinstance(got, torch.Tensor) or got.dtype != want.dtype or got.shape != want.shape:
            desc = (f"{got.dtype}{tuple(got.shape)}" if isinstance(got, torch.Tensor)
                    else type(got).__name__)
            print(f"    structure mismatch: got {desc}, want {want.dtype}{tuple(want.shape)}")
            return False, float("inf"), float("inf")
        if want.numel() == 0:
            return True, 0.0, 0.0
        if not want.is_floating_point():
            bad = (got != want).sum().item()
            return bad == 0, float(bad), float(bad)
        d = (got.double() - want.double()).abs()
        used = (d / (ATOL + RTOL * want.double().abs())).max().item()
        ok = torch.allclose(got, want, atol=ATOL, rtol=RTOL, equal_nan=True)
        return ok, d.max().item(), used
    if type(got) is not type(want) or len(got) != len(want):
        print(f"    structure mismatch: got {type(got).__name__}, want {type(want).__name__}")
        return False, float("inf"), float("inf")
    parts = [compare(g, w) for g, w in zip(got, want)]
    return all(p[0] for p in parts), max(p[1] for p in parts), max(p[2] for p in parts)


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


def check(pid, prob_file, cand_file, sizes, dev, seeds, strided_too=True, show_time=True):
    prob = load(prob_file)
    cand = load(cand_file)
    set_sizes(prob, sizes)
    ok_all, worst = True, 0.0
    for seed in seeds:
        for strided in ((False, True) if strided_too else (False,)):
            ref, new = build(prob, cand, seed, dev)
            xs = inputs_for(prob, seed, dev, strided)
            with torch.no_grad():
                want = ref(*[x.clone() for x in xs])
                got = new(*[x.clone() for x in xs])
            ok, err, used = compare(got, want)
            ok_all &= ok
            worst = max(worst, used)
            tag = "strided" if strided else "contig "
            line = (f"  {cand_file.name:36s} seed={seed} {tag} max_abs_err={err:.3e} "
                    f"tol_used={used:.3f} allclose={ok}")
            if show_time and not strided:
                with torch.no_grad():
                    t_new = timed(lambda: new(*xs), dev)
                    t_ref = timed(lambda: ref(*xs), dev)
                line += f"  cand={t_new:.1f}ms ref={t_ref:.2f}ms"
                if dev == "cpu" and t_new > 500:
                    line += "  (SLOW: CPU sizes should run well under 1 s)"
                    ok_all = False
            print(line, flush=True)
    return ok_all, worst


def shapes(obj):
    if isinstance(obj, torch.Tensor):
        return [tuple(obj.shape)]
    return [s for o in obj for s in shapes(o)]


def tensors(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    return [t for o in obj for t in tensors(o)]


def gpu_size_report(problems):
    # meta device: shapes and dtypes only, nothing is allocated.
    print("GPU-default sizes (meta device):")
    ok_all = True
    for pid, prob_file, _, _ in problems:
        prob = load(prob_file)
        with torch.device("meta"):
            model = prob.Model(*prob.get_init_inputs())
            xs = prob.get_inputs()
            out = model(*xs)
        params = list(model.parameters())
        everything = xs + params + tensors(out)
        mib = [t.numel() * t.element_size() / 2 ** 20 for t in everything]
        moved = sum(mib) * 2 ** 20
        est_us = max(moved / HBM_BYTES_PER_S, GPU_FLOPS.get(pid, 0) / FP32_FLOPS_PER_S) * 1e6
        want_in, want_out = GPU_EXPECTED[pid]
        ok = (shapes(xs) == want_in and shapes(out) == want_out
              and all(x.dtype == torch.float32 for x in xs if x.is_floating_point())
              and 16 <= max(mib) <= 512 and 20 <= est_us <= 5000)
        ok_all &= ok
        desc = lambda ts: ", ".join(  # noqa: E731
            f"{str(t.dtype)[6:]}{list(t.shape)}={t.numel() * t.element_size() / 2**20:.1f}MiB"
            for t in ts)
        print(f"  {'ok ' if ok else 'BAD'} {pid:24s} in: {desc(xs)}"
              + (f" | params: {desc(params)}" if params else "")
              + f" | out: {desc(tensors(out))} | est ~{est_us:.0f}us")
    return ok_all


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
    ap.add_argument("--only", nargs="*", help="problem ids to check (default: all)")
    args = ap.parse_args()
    dev = "cuda" if args.cuda else "cpu"
    if dev == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        sys.exit("set TRITON_INTERPRET=1 for the CPU run")
    if dev == "cpu" and not interpreter_loops_ok():
        sys.exit(2)
    problems = [p for p in read_suite() if not args.only or p[0] in args.only]
    results = []
    if dev == "cpu":
        results.append(("gpu-default sizes", gpu_size_report(problems)))
    for pid, prob_file, cands, cpu_sizes in problems:
        sizes = cpu_sizes if dev == "cpu" else {}
        print(f"{pid} sizes={sizes or 'problem defaults'}")
        if not cands:
            print("  FAIL no candidate file")
            results.append((pid, False))
        for cand in cands:
            ok, worst = check(pid, prob_file, cand, sizes, dev, SEEDS)
            print(f"{'PASS' if ok else 'FAIL'} {cand.name} (max tol_used {worst:.3f})")
            results.append((cand.name, ok))
    if dev == "cpu":
        print("Full GPU reduction length, few rows (one seed, contiguous):")
        for pid, prob_file, cands, _ in problems:
            if pid not in FULL_REDUCTION_SIZES:
                continue
            for cand in cands:
                ok, worst = check(pid, prob_file, cand, FULL_REDUCTION_SIZES[pid], dev,
                                  SEEDS[:1], strided_too=False, show_time=False)
                print(f"{'PASS' if ok else 'FAIL'} {cand.name} full-length "
                      f"{FULL_REDUCTION_SIZES[pid]} (tol_used {worst:.3f})")
                results.append((f"{cand.name} full-length", ok))
    n_ok = sum(ok for _, ok in results)
    print(f"{n_ok} passed, {len(results) - n_ok} failed")
    for name, ok in results:
        if not ok:
            print(f"  failed: {name}")
    sys.exit(0 if n_ok == len(results) else 1)


if __name__ == "__main__":
    main()
