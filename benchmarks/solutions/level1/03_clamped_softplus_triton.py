import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _clamped_softplus_kernel(x_ptr, y_ptr, n, scale, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = tl.minimum(tl.maximum(x * scale, lo), hi)
    # log(1 + e^z) = max(z, 0) + log(1 + e^-|z|): the exp argument is <= 0, so it is
    # finite for any clamp bounds, and one fused pass replaces eager's four kernels.
    y = tl.maximum(z, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(z)))
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
        BLOCK = 1024
        _clamped_softplus_kernel[(triton.cdiv(n, BLOCK),)](
            x, y, n, self.scale, self.lo, self.hi, BLOCK=BLOCK, num_warps=4)
        return y
