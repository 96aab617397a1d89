# Triton: online logsumexp, one program per row, looping over the row in BLOCK chunks with a
# running (max, sum of exp(x - max)) pair; never exponentiates anything above the max.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=float("-inf"))
        new_m = tl.maximum(m, x)
        # Lanes that have seen nothing yet keep m = -inf; guard their rescale against nan.
        scale = tl.where(new_m == float("-inf"), 0.0, tl.exp(m - new_m))
        s = s * scale + tl.where(x == float("-inf"), 0.0, tl.exp(x - new_m))
        m = new_m
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max)), axis=0)
    tl.store(out_ptr + row, row_max + tl.log(total))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty(rows, device=x.device, dtype=x.dtype)
        logsumexp_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=1024, num_warps=4)
        return out
