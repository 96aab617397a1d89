# Clamped softplus; scale and bounds passed to the kernel as runtime scalars.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clamped_softplus_kernel(x_ptr, y_ptr, n, scale, lo, hi, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    z = tl.minimum(tl.maximum(x * scale, lo), hi)
    # log1p(exp(z)) with z in [lo, hi]: exp cannot overflow, and log(1 + e) is exact enough
    # in fp32 for e >= exp(-6).
    y = tl.log(1.0 + tl.exp(z))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale, lo, hi):
        super().__init__()
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK_SIZE = 1024
        clamped_softplus_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
            x, y, n, self.scale, self.lo, self.hi, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)
        return y
