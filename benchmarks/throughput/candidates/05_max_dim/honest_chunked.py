# Row max and argmax over column chunks (rows of any length): a running best value and index.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _argmax_chunked(x_ptr, v_ptr, i_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    best_v = tl.full((BLOCK,), -float("inf"), tl.float32)
    best_i = tl.zeros((BLOCK,), dtype=tl.int32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        take = x > best_v  # strictly greater: an earlier chunk keeps ties
        best_i = tl.where(take, cols, best_i)
        best_v = tl.where(take, x, best_v)
    m = tl.max(best_v, axis=0)
    idx = tl.min(tl.where(best_v == m, best_i, n_cols), axis=0)
    tl.store(v_ptr + row, m)
    tl.store(i_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[-1]
        x2 = x.contiguous().reshape(-1, n)
        v = torch.empty(x2.shape[0], device=x.device, dtype=x.dtype)
        i = torch.empty(x2.shape[0], device=x.device, dtype=torch.long)
        _argmax_chunked[(x2.shape[0],)](x2, v, i, n, x2.stride(0), BLOCK=512, num_warps=4)
        return v.reshape(x.shape[:-1]), i.reshape(x.shape[:-1])
