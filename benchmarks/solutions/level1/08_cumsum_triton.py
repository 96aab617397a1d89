import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    # One program per row: scan BLOCK columns at a time and carry the running total, so
    # any row length works with a fixed register footprint.
    row = tl.program_id(0).to(tl.int64)
    carry = 0.0
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * stride_y + cols, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        y = torch.empty_like(x2)
        BLOCK = 512
        _cumsum_kernel[(x2.shape[0],)](x2, y, n_cols, x2.stride(0), y.stride(0),
                                       BLOCK=BLOCK, num_warps=4)
        return y.view(x.shape)
