# Honest but slow: two kernels and an intermediate tensor (scale+clamp, then softplus), each
# with small blocks: three passes over memory where one would do.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scale_clamp(x_ptr, z_ptr, n, scale, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, tl.minimum(tl.maximum(x * scale, lo), hi), mask=mask)


@triton.jit
def _softplus(z_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.log(1.0 + tl.exp(z)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale, lo, hi):
        super().__init__()
        self.scale, self.lo, self.hi = scale, lo, hi

    def forward(self, x):
        x = x.contiguous()
        z = torch.empty_like(x)
        y = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 64),)
        _scale_clamp[grid](x, z, n, self.scale, self.lo, self.hi, BLOCK=64, num_warps=1)
        _softplus[grid](z, y, n, BLOCK=64, num_warps=1)
        return y
