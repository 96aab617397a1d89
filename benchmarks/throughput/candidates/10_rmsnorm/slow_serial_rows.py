# Honest but slow: each program normalises 16 rows one after another, 128 columns at a time,
# with one warp: far too few programs to fill the GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, y_ptr, n_rows, n_cols, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    first = tl.program_id(0) * ROWS
    for i in range(0, ROWS):
        row = first + i
        if row < n_rows:
            base = row.to(tl.int64) * n_cols
            acc = tl.zeros((BLOCK,), dtype=tl.float32)
            for c0 in range(0, n_cols, BLOCK):
                cols = c0 + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=0.0)
                acc += v * v
            r = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
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
        x2 = x.contiguous().view(-1, x.shape[-1])
        y = torch.empty_like(x2)
        rows, cols = x2.shape
        ROWS = 16
        _rmsnorm_rows[(triton.cdiv(rows, ROWS),)](x2, self.weight, y, rows, cols, self.eps,
                                                   ROWS=ROWS, BLOCK=128, num_warps=1)
        return y.view(x.shape)
