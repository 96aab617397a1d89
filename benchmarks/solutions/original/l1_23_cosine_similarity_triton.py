# Triton: per row, the three sums a.b, a.a and b.b in one pass (BLOCK chunks), then
# a.b / sqrt(max(a.a * b.b, eps^2)) as torch computes it.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cosine_kernel(a_ptr, b_ptr, out_ptr, dim, stride, eps_sq, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    dot = tl.zeros((BLOCK,), tl.float32)
    aa = tl.zeros((BLOCK,), tl.float32)
    bb = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, dim, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < dim
        a = tl.load(a_ptr + row * stride + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + row * stride + cols, mask=mask, other=0.0)
        dot += a * b
        aa += a * a
        bb += b * b
    denom = tl.sqrt(tl.maximum(tl.sum(aa, axis=0) * tl.sum(bb, axis=0), eps_sq))
    tl.store(out_ptr + row, tl.sum(dot, axis=0) / denom)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        rows, dim = a.shape
        out = torch.empty(rows, device=a.device, dtype=a.dtype)
        cosine_kernel[(rows,)](a, b, out, dim, a.stride(0), 1e-16, BLOCK=512, num_warps=4)
        return out
