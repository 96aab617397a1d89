# Wrong: divides by the sum of squares instead of its square root.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2norm_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    ss = tl.sum(x * x, axis=0)
    tl.store(y_ptr + row * stride + cols, x / tl.maximum(ss, 1e-12), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[-1]
        x2 = x.contiguous().view(-1, n)
        y = torch.empty_like(x2)
        l2norm_kernel[(x2.shape[0],)](x2, y, n, x2.stride(0), BLOCK=triton.next_power_of_2(n))
        return y.view(x.shape)
