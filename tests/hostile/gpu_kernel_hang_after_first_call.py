# GPU-only hostile candidate: right on its first call, then it launches a Triton kernel that
# never returns (the loop condition is always true at run time). The launch itself returns; the
# worker hangs at the next synchronisation, after the run phase began: the run limit
# (run_timeout_s) must fire, not the compile limit, and the next job must get a working GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def spin_after_first(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(x_ptr + offsets, mask=mask)
    first = tl.load(x_ptr)
    step = 0.0
    while first == first:  # false only for NaN, and the inputs hold none
        step += 1.0
        tl.store(out_ptr + offsets, values + step, mask=mask)


class ModelNew(nn.Module):
    calls = 0

    def forward(self, x):
        ModelNew.calls += 1
        if ModelNew.calls == 1:
            return x + 1.0
        out = torch.empty_like(x)
        n = x.numel()
        spin_after_first[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
