# RMSNorm, one program per row, the row in one block; the weight kept as the same Parameter.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fwd(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + offs, x * tl.rsqrt(ms + eps) * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        # Same name, shape and RNG draws as the reference's weight.
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        n_cols = x.shape[-1]
        out = torch.empty_like(x)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        rmsnorm_fwd[(x.numel() // n_cols,)](x, self.weight, out, n_cols, self.eps,
                                            BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
        return out
