# Triton: suffix sums without flipping. One program per row walks the row from its end in
# BLOCK chunks; inside a chunk tl.cumsum(reverse=True), plus the carry of the chunks after it.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def suffix_sum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = 0.0
    n_chunks = tl.cdiv(n_cols, BLOCK)
    for i in range(0, n_chunks):
        start = (n_chunks - 1 - i) * BLOCK
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * stride + cols, tl.cumsum(x, axis=0, reverse=True) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        suffix_sum_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=1024, num_warps=4)
        return y
