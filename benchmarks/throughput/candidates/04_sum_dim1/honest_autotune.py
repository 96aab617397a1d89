# Sum over dim 1, autotuned tile shape; the grid is a lambda over the chosen BLOCK_C.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_R": 32, "BLOCK_C": 128}, num_warps=4),
        triton.Config({"BLOCK_R": 8, "BLOCK_C": 512}, num_warps=8),
    ],
    key=["R", "C"],
)
@triton.jit
def _reduce_rows(x_ptr, out_ptr, R, C, stride_b, stride_r, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        m = (r[:, None] < R) & (cols[None, :] < C)
        acc += tl.load(x_ptr + b * stride_b + r[:, None] * stride_r + cols[None, :], mask=m, other=0.0)
    tl.store(out_ptr + b * C + cols, tl.sum(acc, axis=0), mask=cols < C)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, R, C = x.shape
        out = torch.empty((B, C), device=x.device, dtype=x.dtype)
        grid = lambda meta: (triton.cdiv(C, meta["BLOCK_C"]), B)
        _reduce_rows[grid](x, out, R, C, x.stride(0), x.stride(1))
        return out
