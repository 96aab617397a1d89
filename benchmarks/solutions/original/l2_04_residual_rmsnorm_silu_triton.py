# Triton: residual add + RMSNorm + weight + SiLU in one kernel, one program per token row,
# two passes over the row (sum of squares, then normalise); fp32 math for the fp32 and bf16
# entries, stored in the input dtype.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_rmsnorm_silu_kernel(x_ptr, r_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    sq = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        h = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32) + \
            tl.load(r_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        sq += h * h
    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        h = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32) + \
            tl.load(r_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        g = h * rstd * w
        y = g / (1.0 + tl.exp(-g))
        tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(hidden) + 0.5)
        self.eps = 1e-6

    def forward(self, x, residual):
        x, residual = x.contiguous(), residual.contiguous()
        y = torch.empty_like(x)
        add_rmsnorm_silu_kernel[(x.shape[0],)](x, residual, self.weight, y, x.shape[1], x.stride(0),
                                               self.eps, BLOCK=1024, num_warps=4)
        return y
