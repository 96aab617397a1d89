# Row L2 normalisation for rows of any length: a loop for the sum of squares, a loop to scale.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sum_squares(x_ptr, row_start, n_cols, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row_start + cols, mask=cols < n_cols, other=0.0)
        acc += v * v
    return tl.sum(acc, axis=0)


@triton.jit
def _normalize_rows(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row_start = tl.program_id(0).to(tl.int64) * n_cols
    inv = 1.0 / tl.maximum(tl.sqrt(_sum_squares(x_ptr, row_start, n_cols, BLOCK)), eps)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row_start + cols, v * inv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.eps = 1e-12

    def forward(self, x):
        n = x.shape[-1]
        x = x.contiguous()
        y = torch.empty_like(x)
        _normalize_rows[(x.numel() // n,)](x, y, n, self.eps, BLOCK=512, num_warps=4)
        return y
