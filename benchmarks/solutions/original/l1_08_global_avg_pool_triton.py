# Triton: global average pooling as a row mean over the (N*C, H*W) view, several planes per
# program (ROWS x BLOCK tile), fp32 sums.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def plane_mean_kernel(x_ptr, out_ptr, n_planes, hw, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    planes = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    acc = tl.zeros((ROWS, BLOCK), tl.float32)
    for start in range(0, hw, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = (planes[:, None] < n_planes) & (cols[None, :] < hw)
        acc += tl.load(x_ptr + planes[:, None].to(tl.int64) * hw + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + planes, tl.sum(acc, axis=1) / hw, mask=planes < n_planes)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        out = torch.empty((N, C), device=x.device, dtype=x.dtype)
        ROWS = 8
        plane_mean_kernel[(triton.cdiv(N * C, ROWS),)](x, out, N * C, H * W, ROWS=ROWS, BLOCK=256)
        return out
