# Wrong: divides by the reduced length (a mean, not a sum).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, y_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    b = tl.program_id(1).to(tl.int64)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        mask = (rows[:, None] < R) & (cols[None, :] < C)
        acc += tl.sum(tl.load(x_ptr + b * R * C + rows[:, None] * C + cols[None, :], mask=mask, other=0.0), axis=0)
    tl.store(y_ptr + b * C + cols, acc / R, mask=cols < C)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, R, C = x.shape
        y = torch.empty((B, C), device=x.device, dtype=x.dtype)
        sum_dim1_kernel[(triton.cdiv(C, 128), B)](x, y, R, C, BLOCK_R=32, BLOCK_C=128)
        return y
