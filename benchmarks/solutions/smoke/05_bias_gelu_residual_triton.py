import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _bias_gelu_residual_kernel(x_ptr, bias_ptr, r_ptr, y_ptr, n_cols,
                               BLOCK: tl.constexpr):
    # Grid: (rows, column blocks); rows go on axis 0, whose limit is 2**31 - 1.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    offs = row * n_cols + cols
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(bias_ptr + cols, mask=mask)
    g = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))  # exact GELU
    tl.store(y_ptr + offs, g + tl.load(r_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(hidden))  # same RNG draw as the reference

    def forward(self, x, residual):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        r2 = residual.contiguous().view(-1, n_cols)
        y = torch.empty_like(x2)
        BLOCK = 1024
        grid = (x2.shape[0], triton.cdiv(n_cols, BLOCK))
        _bias_gelu_residual_kernel[grid](x2, self.bias, r2, y, n_cols,
                                         BLOCK=BLOCK, num_warps=4)
        return y.view(x.shape)
