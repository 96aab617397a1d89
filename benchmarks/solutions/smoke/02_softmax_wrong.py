"""Deliberately WRONG softmax: a negative fixture for the harness's correctness
check. It normalises by the row's largest exponential (always 1) instead of the
row sum, so rows don't sum to 1 and every output is far off. Do not fix."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.max(e, axis=0)  # BUG: should be tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride_y + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        y = torch.empty_like(x2)
        BLOCK = triton.next_power_of_2(n_cols)
        num_warps = min(16, max(4, BLOCK // 512))
        _softmax_kernel[(x2.shape[0],)](x2, y, n_cols, x2.stride(0), y.stride(0),
                                        BLOCK=BLOCK, num_warps=num_warps)
        return y.view(x.shape)
