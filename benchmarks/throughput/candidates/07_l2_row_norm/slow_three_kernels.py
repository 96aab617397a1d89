# Honest but slow: squares to a temporary, reduces per row in a second kernel, scales in a
# third, all with small blocks.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _square(x_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(s_ptr + offs, v * v, mask=offs < n)


@triton.jit
def _row_norm(s_ptr, norm_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        acc += tl.load(s_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(norm_ptr + row, tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), 1e-12))


@triton.jit
def _scale(x_ptr, norm_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0)
    d = tl.load(norm_ptr + offs // n_cols, mask=mask, other=1.0)
    tl.store(y_ptr + offs, v / d, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x = x.contiguous()
        n = x.numel()
        rows = n // n_cols
        sq = torch.empty_like(x)
        norms = torch.empty(rows, device=x.device, dtype=x.dtype)
        y = torch.empty_like(x)
        _square[(triton.cdiv(n, 64),)](x, sq, n, BLOCK=64, num_warps=1)
        _row_norm[(rows,)](sq, norms, n_cols, BLOCK=32, num_warps=1)
        _scale[(triton.cdiv(n, 64),)](x, norms, y, n, n_cols, BLOCK=64, num_warps=1)
        return y
