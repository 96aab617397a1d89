# Triton: the four elementwise ops in one pass; 2-D grid (row blocks x column blocks) so the
# per-column bias is loaded once per tile; tanh from exp (finite for every input); fp32 math,
# stored in the input dtype (fp32 and the bf16 entry).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tanh(x):
    return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)


@triton.jit
def bias_clamp_tanh_kernel(x_ptr, bias_ptr, y_ptr, n_rows, n_cols, stride,
                           BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None].to(tl.int64) * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    h = tl.minimum(tl.maximum(x + b[None, :], -3.0), 3.0)
    tl.store(y_ptr + offs, (2.5 * _tanh(h)).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.bias = nn.Parameter(torch.linspace(-1.0, 1.0, cols))

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        grid = (triton.cdiv(rows, 16), triton.cdiv(cols, 256))
        bias_clamp_tanh_kernel[grid](x, self.bias, y, rows, cols, x.stride(0), BLOCK_R=16, BLOCK_C=256)
        return y
