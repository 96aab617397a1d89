# Triton: log_softmax of wide rows in two passes over the row (online max and sum first, then
# x - max - log(sum)), so a 16384-wide row never has to fit in registers.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
        new_m = tl.maximum(m, x)
        s = s * tl.where(new_m == float("-inf"), 0.0, tl.exp(m - new_m)) + \
            tl.where(x == float("-inf"), 0.0, tl.exp(x - new_m))
        m = new_m
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max)), axis=0)
    shift = row_max + tl.log(row_sum)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * stride + cols, x - shift, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        log_softmax_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=2048, num_warps=8)
        return y
