#!/usr/bin/env python3
"""Does data a kernel marks for L2 survive kbench's flush? (the cold protocol's premise)

kbench's `cold` mode reads a 256 MiB buffer (`flush_buffer.sum()`, docs/timing.md) before every
sample so that every variant starts with its data in HBM. A candidate may mark its own data to
outlive that: Triton's `eviction_policy="evict_last"` (on sm80+ `createpolicy.fractional.L2::
evict_last` + `L2::cache_hint`; Inductor's own kernels use it too), or, from native code, an access
policy window with `hitProp = persisting` over its weights. Data reused across calls (weights,
constants) would then be read from L2 while the baselines read HBM: a real speed gain the cold
protocol is meant to rule out.

Per row: a Triton kernel reads X (--mib MiB) once with the row's policy (warm-up), the flush runs,
then the timed read of X with the same policy (CUDA events), median of --repeat. `cold/normal`
is the reference; a row much faster than it means X survived the flush. Flushes:
  sum           kbench's flush (`flush.sum()`, 256 MiB uint8)
  sum+last      a read of the flush buffer with evict_last first, then `sum` (evicts evict_last lines?)
  last+discard  only that evict_last read, then `discard.global.L2` of the buffer's lines (does a
                flush of evict_last reads evict normal lines? On the H100 it does not)
  reset         `sum` after cuCtxResetPersistingL2Cache (what the persisting rows need)
A GPU machine, seconds, no kbench build:  python3 benchmarks/integrity/l2_survival_probe.py
"""
import argparse
import ctypes
import statistics

import torch
import triton
import triton.language as tl

CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1
CU_ACCESS_PROPERTY_NORMAL, CU_ACCESS_PROPERTY_PERSISTING = 0, 2
ATTRIBUTES = {"L2_CACHE_SIZE": 38, "MAX_PERSISTING_L2_CACHE_SIZE": 108, "MAX_ACCESS_POLICY_WINDOW_SIZE": 109}


class AccessPolicyWindow(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int)]


class StreamAttrValue(ctypes.Union):  # CUlaunchAttributeValue: 64 bytes
    _fields_ = [("accessPolicyWindow", AccessPolicyWindow), ("pad", ctypes.c_char * 64)]


@triton.jit
def _read(x_ptr, out_ptr, n, BLOCK: tl.constexpr, LAST: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if LAST:
        v = tl.load(x_ptr + offs, mask=offs < n, other=0.0, eviction_policy="evict_last")
    else:
        v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(v, axis=0))


@triton.jit
def _read_bytes_last(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0, eviction_policy="evict_last")
    tl.store(out_ptr + tl.program_id(0), tl.sum(v.to(tl.int32), axis=0))


@triton.jit
def _discard_lines(x_ptr, lines, BLOCK: tl.constexpr):
    """PTX discard.global.L2 on each 128-byte line: the line leaves L2 without a write-back."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ptrs = x_ptr + tl.where(offs < lines, offs, 0).to(tl.int64) * 128
    tl.inline_asm_elementwise("discard.global.L2 [$1], 128;\n mov.u32 $0, 0;", "=r,l", [ptrs],
                              dtype=tl.int32, is_pure=False, pack=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=float, nargs="+", default=[4, 16])
    ap.add_argument("--repeat", type=int, default=40)
    args = ap.parse_args()
    cuda = ctypes.CDLL("libcuda.so.1")
    torch.cuda.init()
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__)
    value, limits = ctypes.c_int(), {}
    for name, attr in ATTRIBUTES.items():
        cuda.cuDeviceGetAttribute(ctypes.byref(value), attr, 0)
        limits[name] = value.value
        print(f"{name} {value.value}")
    stream = torch.cuda.Stream()
    flush = torch.ones(256 << 20, dtype=torch.uint8, device="cuda")
    flush_out = torch.empty(triton.cdiv(flush.numel(), 4096), dtype=torch.int32, device="cuda")

    def set_window(x, prop):
        window = StreamAttrValue()
        window.accessPolicyWindow = AccessPolicyWindow(x.data_ptr(), x.numel() * x.element_size() if prop else 0,
                                                       1.0, prop, CU_ACCESS_PROPERTY_NORMAL)
        rc = cuda.cuStreamSetAttribute(ctypes.c_void_p(stream.cuda_stream), CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW,
                                       ctypes.byref(window))
        assert rc == 0, f"cuStreamSetAttribute: {rc}"

    # Where kbench times (the legacy default stream, handle 0): may a window be set there?
    probe_window = StreamAttrValue()
    rc = cuda.cuStreamSetAttribute(ctypes.c_void_p(0), CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, ctypes.byref(probe_window))
    print(f"access policy window on the legacy default stream: rc {rc}")
    flushes = {
        "sum": lambda: flush.sum(),
        "sum+last": lambda: (_read_bytes_last[(flush_out.numel(),)](flush, flush_out, flush.numel(), BLOCK=4096),
                             flush.sum()),
        "last+discard": lambda: (_read_bytes_last[(flush_out.numel(),)](flush, flush_out, flush.numel(), BLOCK=4096),
                                 _discard_lines[(triton.cdiv(flush.numel() // 128, 1024),)](flush, flush.numel() // 128,
                                                                                           BLOCK=1024)),
        "reset": lambda: (cuda.cuCtxResetPersistingL2Cache(), flush.sum()),
    }

    def time_row(read, flush_fn, persisting_x, repeat):
        """Median us of `read` after warming with it and then flushing (CUDA events)."""
        with torch.cuda.stream(stream):
            if persisting_x is not False:
                rc = cuda.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
                                        ctypes.c_size_t(limits["MAX_PERSISTING_L2_CACHE_SIZE"]))
                assert rc == 0, f"cuCtxSetLimit: {rc}"
                set_window(persisting_x, CU_ACCESS_PROPERTY_PERSISTING)
            try:
                times = []
                for _ in range(repeat + 3):
                    read()
                    if flush_fn:
                        flush_fn()
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    torch.cuda.synchronize()
                    start.record()
                    read()
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end) * 1000)
            finally:
                if persisting_x is not False:
                    set_window(persisting_x, 0)
                    cuda.cuCtxResetPersistingL2Cache()
                    cuda.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(0))
        return statistics.median(times[3:])

    for mib in args.mib:
        x = torch.randn(int(mib * (1 << 20)) // 4, device="cuda")
        out = torch.empty(triton.cdiv(x.numel(), 4096), device="cuda")

        def read(last):
            _read[(out.numel(),)](x, out, x.numel(), BLOCK=4096, LAST=last)

        rows = [("hot/normal", None, False, False), ("cold/normal", "sum", False, False),
                ("cold/evict_last", "sum", True, False), ("cold/evict_last", "sum+last", True, False),
                ("cold/normal", "sum+last", False, False), ("cold/evict_last", "last+discard", True, False),
                ("cold/normal", "last+discard", False, False), ("cold/persisting", "sum", False, True),
                ("cold/persisting", "reset", False, True)]
        print(f"\nX = {mib} MiB")
        reference = None
        for name, flush_name, last, persisting in rows:
            try:
                median = time_row(lambda: read(last), flushes.get(flush_name), persisting and x, args.repeat)
            except Exception as e:  # one row's failure (e.g. an unsupported PTX form) is not the others'
                print(f"{name:18s} flush {flush_name or '-':12s} failed: {type(e).__name__}: {str(e)[:200]}")
                continue
            if name == "cold/normal" and flush_name == "sum":
                reference = median
            ratio = f"{median / reference:.2f} of cold/normal" if reference else ""
            print(f"{name:18s} flush {flush_name or '-':12s} {median:8.2f} us  {ratio}")


if __name__ == "__main__":
    main()
