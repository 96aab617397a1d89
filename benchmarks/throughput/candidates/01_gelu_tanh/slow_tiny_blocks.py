# Honest but slow: 32-element blocks with one warp, so the launch is ~8x wider than it needs to
# be and every program does almost nothing.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_small_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    e = tl.exp(-2.0 * tl.abs(u))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(u < 0, -t, t)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + t), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_small_kernel[(triton.cdiv(n, 32),)](x, y, n, BLOCK=32, num_warps=1)
        return y
