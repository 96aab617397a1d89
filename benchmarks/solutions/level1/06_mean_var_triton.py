import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mean_var_kernel(x_ptr, mean_ptr, var_ptr, n_cols, stride_x, BLOCK: tl.constexpr):
    # One program per row; the whole row lives in one block (BLOCK >= n_cols).
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    # Two-pass (centre, then square) from registers: exact enough with a large mean,
    # where E[x^2] - E[x]^2 cancels.
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / (n_cols - 1)  # correction=1
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, var)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        rows = x2.shape[0]
        mean = torch.empty(rows, device=x.device, dtype=x.dtype)
        var = torch.empty(rows, device=x.device, dtype=x.dtype)
        BLOCK = triton.next_power_of_2(n_cols)
        num_warps = min(16, max(4, BLOCK // 512))
        _mean_var_kernel[(rows,)](x2, mean, var, n_cols, x2.stride(0),
                                  BLOCK=BLOCK, num_warps=num_warps)
        return mean.view(x.shape[:-1]), var.view(x.shape[:-1])
