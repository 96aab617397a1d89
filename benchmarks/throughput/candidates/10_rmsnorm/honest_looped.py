# RMSNorm with a looped reduction (rows of any width) and a helper for the row's inverse RMS.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _inv_rms(x_ptr, base, n_cols, eps, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=0.0)
        acc += v * v
    return 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)


@triton.jit
def _rmsnorm_looped(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    r = _inv_rms(x_ptr, base, n_cols, eps, BLOCK)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        tl.store(y_ptr + base + cols, v * r * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        shape = x.shape
        x2 = x.reshape(-1, shape[-1]).contiguous()
        y = torch.empty_like(x2)
        _rmsnorm_looped[(x2.shape[0],)](x2, self.weight, y, x2.shape[1], self.eps, BLOCK=1024,
                                        num_warps=4)
        return y.reshape(shape)
