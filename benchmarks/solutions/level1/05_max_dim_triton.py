import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_dim_kernel(x_ptr, v_ptr, i_ptr, n_cols, stride_x, BLOCK: tl.constexpr):
    # One program per row; the whole row lives in one block (BLOCK >= n_cols).
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_x + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    # Lowest column holding the max: torch.max returns the first one on ties.
    idx = tl.min(tl.where(x == m, cols, BLOCK), axis=0)
    tl.store(v_ptr + row, m)
    tl.store(i_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        rows = x2.shape[0]
        values = torch.empty(rows, device=x.device, dtype=x.dtype)
        indices = torch.empty(rows, device=x.device, dtype=torch.int64)
        BLOCK = triton.next_power_of_2(n_cols)
        num_warps = min(16, max(4, BLOCK // 512))
        _max_dim_kernel[(rows,)](x2, values, indices, n_cols, x2.stride(0),
                                 BLOCK=BLOCK, num_warps=num_warps)
        return values.view(x.shape[:-1]), indices.view(x.shape[:-1])
