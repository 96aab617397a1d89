# Wrong: the activation is applied to the second half (silu(b) * a instead of silu(a) * b).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(x_ptr, y_ptr, hidden, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < hidden
    a = tl.load(x_ptr + row * 2 * hidden + cols, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * 2 * hidden + hidden + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * hidden + cols, b * tl.sigmoid(b) * a, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        hidden = x2.shape[1] // 2
        y = torch.empty((x2.shape[0], hidden), device=x.device, dtype=x.dtype)
        swiglu_kernel[(x2.shape[0], triton.cdiv(hidden, 512))](x2, y, hidden, BLOCK=512)
        return y.view(*x.shape[:-1], hidden)
