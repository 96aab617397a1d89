# Honest but slow: one program per output element, striding down the reduced dimension
# (uncoalesced loads: neighbouring programs read addresses C floats apart).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _column_sum(x_ptr, y_ptr, R, C, BLOCK_R: tl.constexpr):
    col = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        acc += tl.load(x_ptr + b * R * C + rows * C + col, mask=rows < R, other=0.0)
    tl.store(y_ptr + b * C + col, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, R, C = x.shape
        y = torch.empty((B, C), device=x.device, dtype=x.dtype)
        _column_sum[(C, B)](x, y, R, C, BLOCK_R=64, num_warps=1)
        return y
