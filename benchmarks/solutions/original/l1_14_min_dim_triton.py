# Triton: min over the middle dim of (B, D1, D2). Each program owns BLOCK_N contiguous columns
# of one batch and walks D1 with a running minimum: coalesced loads along D2.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def min_dim1_kernel(x_ptr, out_ptr, D1, D2, stride_b, stride_r, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < D2
    acc = tl.full((BLOCK_N,), float("inf"), dtype=tl.float32)
    base = x_ptr + b * stride_b + cols
    for r in range(0, D1):
        v = tl.load(base + r * stride_r, mask=mask, other=float("inf"))
        acc = tl.minimum(acc, v)
    tl.store(out_ptr + b * D2 + cols, acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=x.dtype)
        BLOCK_N = 256
        grid = (B, triton.cdiv(D2, BLOCK_N))
        min_dim1_kernel[grid](x, out, D1, D2, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N, num_warps=2)
        return out
