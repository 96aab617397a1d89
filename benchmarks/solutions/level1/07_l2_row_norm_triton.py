import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _l2_row_norm_kernel(x_ptr, y_ptr, n_cols, stride_x, stride_y, eps, BLOCK: tl.constexpr):
    # One program per row; the whole row lives in one block, so x is read once.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    # Divide (not multiply by a reciprocal), as F.normalize does.
    tl.store(y_ptr + row * stride_y + cols, x / tl.maximum(norm, eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        y = torch.empty_like(x2)
        BLOCK = triton.next_power_of_2(n_cols)
        num_warps = min(16, max(4, BLOCK // 512))
        _l2_row_norm_kernel[(x2.shape[0],)](x2, y, n_cols, x2.stride(0), y.stride(0), 1e-12,
                                            BLOCK=BLOCK, num_warps=num_warps)
        return y.view(x.shape)
