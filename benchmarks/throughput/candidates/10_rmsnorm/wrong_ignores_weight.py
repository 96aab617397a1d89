# Wrong: normalises but never multiplies by the weight (the reference's weight is not all ones).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fwd(x_ptr, out_ptr, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    tl.store(out_ptr + row * n_cols + offs, x * tl.rsqrt(ms + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        n_cols = x.shape[-1]
        out = torch.empty_like(x)
        rmsnorm_fwd[(x.numel() // n_cols,)](x, out, n_cols, self.eps,
                                            BLOCK_SIZE=triton.next_power_of_2(n_cols))
        return out
