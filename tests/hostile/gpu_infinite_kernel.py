# GPU-only hostile candidate: a Triton kernel that never returns (its loop condition is
# always true at run time; the store keeps the loop from being optimised away). The watchdog
# must kill the worker (status timeout) and the next job must get a working GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def spin_forever(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    values = tl.load(x_ptr + offsets, mask=mask)
    first = tl.load(x_ptr)
    step = 0.0
    while first == first:  # false only for NaN, and the inputs hold none
        step += 1.0
        tl.store(out_ptr + offsets, values + step, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        spin_forever[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
