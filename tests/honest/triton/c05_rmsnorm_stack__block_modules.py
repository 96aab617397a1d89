# Honest Triton candidate (level-3 style): a custom block class in an nn.ModuleList; each
# block's forward launches one fused kernel (rms over the row, normalise, SiLU, gamma,
# residual) through a small launcher function.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rms_silu_residual_kernel(x_ptr, w_ptr, g_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    h = x * rstd * tl.load(w_ptr + cols, mask=mask, other=0.0)
    silu = h * tl.sigmoid(h)
    g = tl.load(g_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, x + g * silu, mask=mask)


def rms_silu_residual(x, weight, gamma, eps):
    n_cols = x.shape[-1]
    x2 = x.contiguous().view(-1, n_cols)
    y = torch.empty_like(x2)
    BLOCK = triton.next_power_of_2(n_cols)
    _rms_silu_residual_kernel[(x2.shape[0],)](x2, weight, gamma, y, n_cols, eps, BLOCK=BLOCK,
                                              num_warps=8 if BLOCK >= 2048 else 4)
    return y.view(x.shape)


class FusedBlock(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.gamma = nn.Parameter(torch.full((hidden,), 0.5))
        self.eps = eps

    def forward(self, x):
        return rms_silu_residual(x, self.weight, self.gamma, self.eps)


class ModelNew(nn.Module):
    def __init__(self, hidden, depth, eps):
        super().__init__()
        self.blocks = nn.ModuleList([FusedBlock(hidden, eps) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
