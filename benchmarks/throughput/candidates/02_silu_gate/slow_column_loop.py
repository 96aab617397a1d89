# Honest but slow: one program per row walks its columns 64 at a time with one warp.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gate_row_loop(x_ptr, y_ptr, hidden, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    for c0 in range(0, hidden, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        mask = cols < hidden
        a = tl.load(x_ptr + row * 2 * hidden + cols, mask=mask, other=0.0)
        b = tl.load(x_ptr + row * 2 * hidden + hidden + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * hidden + cols, a * tl.sigmoid(a) * b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        hidden = x2.shape[1] // 2
        y = torch.empty((x2.shape[0], hidden), device=x.device, dtype=x.dtype)
        _gate_row_loop[(x2.shape[0],)](x2, y, hidden, BLOCK=64, num_warps=1)
        return y.view(*x.shape[:-1], hidden)
