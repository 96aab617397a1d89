# Triton: weighted centred sum of squares per row; two passes (mean first, then the centred
# terms) so the 2 sigma + 10 shifted rows keep their digits.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def weighted_var_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        c = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0) - mean
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        acc += tl.where(mask, c * c * w, 0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(cols) / cols)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        weighted_var_kernel[(x.shape[0],)](x, self.weight, out, x.shape[1], x.stride(0), BLOCK=1024)
        return out
