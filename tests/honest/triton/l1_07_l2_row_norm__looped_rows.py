# Honest Triton candidate: rows longer than one block -- the kernel loops over the row twice
# (sum of squares, then scale), several rows per program along a second grid axis.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _l2_normalize_kernel(x_ptr, y_ptr, n_rows, n_cols, eps,
                         ROWS_PER_PROGRAM: tl.constexpr, BLOCK: tl.constexpr):
    for r in range(ROWS_PER_PROGRAM):
        row = tl.program_id(0) * ROWS_PER_PROGRAM + r
        if row < n_rows:
            base = row.to(tl.int64) * n_cols
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for start in range(0, n_cols, BLOCK):
                cols = start + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=0.0)
                acc += x * x
            # F.normalize: x / max(||x||, eps)
            denom = tl.maximum(tl.sqrt(tl.sum(acc, axis=0)), eps)
            for start in range(0, n_cols, BLOCK):
                cols = start + tl.arange(0, BLOCK)
                mask = cols < n_cols
                x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
                tl.store(y_ptr + base + cols, x / denom, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        y = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        ROWS = 4
        _l2_normalize_kernel[(triton.cdiv(n_rows, ROWS),)](x2, y, n_rows, n_cols, 1e-12,
                                                          ROWS_PER_PROGRAM=ROWS, BLOCK=512)
        return y.view(x.shape)
