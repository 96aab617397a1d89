# Row max and argmax: one program per row, the whole row in one block.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, values_ptr, indices_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    best = tl.max(x, axis=0)
    # torch.max returns the first index on ties.
    first = tl.min(tl.where(x == best, cols, BLOCK), axis=0)
    tl.store(values_ptr + row, best)
    tl.store(indices_ptr + row, first.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        values = torch.empty(x2.shape[0], device=x.device, dtype=x.dtype)
        indices = torch.empty(x2.shape[0], device=x.device, dtype=torch.int64)
        BLOCK = triton.next_power_of_2(n_cols)
        row_max_kernel[(x2.shape[0],)](x2, values, indices, n_cols, x2.stride(0), BLOCK=BLOCK,
                                       num_warps=8)
        return values.view(x.shape[:-1]), indices.view(x.shape[:-1])
