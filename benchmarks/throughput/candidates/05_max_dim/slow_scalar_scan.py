# Honest but slow: each program scans its row 16 columns at a time with a single warp.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scan_max(x_ptr, v_ptr, i_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    best = -float("inf")
    best_idx = 0
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        m = tl.max(x, axis=0)
        j = tl.min(tl.where(x == m, cols, n_cols), axis=0)
        better = m > best
        best_idx = tl.where(better, j, best_idx)
        best = tl.where(better, m, best)
    tl.store(v_ptr + row, best)
    tl.store(i_ptr + row, best_idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[-1]
        x2 = x.contiguous().view(-1, n)
        v = torch.empty(x2.shape[0], device=x.device, dtype=x.dtype)
        i = torch.empty(x2.shape[0], device=x.device, dtype=torch.int64)
        _scan_max[(x2.shape[0],)](x2, v, i, n, x2.stride(0), BLOCK=16, num_warps=1)
        return v.view(x.shape[:-1]), i.view(x.shape[:-1])
