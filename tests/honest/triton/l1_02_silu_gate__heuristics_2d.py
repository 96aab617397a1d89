# Honest Triton candidate: @triton.heuristics decides whether the column blocks divide the
# hidden size (no masks then); a 2-D grid of (row, column block); the two halves of each row
# are read in place (no chunk copies).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({"EVEN_N": lambda args: args["hidden"] % args["BLOCK_N"] == 0})
@triton.jit
def _silu_gate_kernel(x_ptr, y_ptr, hidden, stride_x, stride_y,
                      BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    a_ptrs = x_ptr + row * stride_x + cols
    b_ptrs = a_ptrs + hidden
    if EVEN_N:
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
    else:
        mask = cols < hidden
        a = tl.load(a_ptrs, mask=mask, other=0.0)
        b = tl.load(b_ptrs, mask=mask, other=0.0)
    out = a * tl.sigmoid(a) * b
    if EVEN_N:
        tl.store(y_ptr + row * stride_y + cols, out)
    else:
        tl.store(y_ptr + row * stride_y + cols, out, mask=cols < hidden)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        hidden = x2.shape[1] // 2
        y = torch.empty((x2.shape[0], hidden), device=x.device, dtype=x.dtype)
        BLOCK_N = 1024
        grid = (x2.shape[0], triton.cdiv(hidden, BLOCK_N))
        _silu_gate_kernel[grid](x2, y, hidden, x2.stride(0), y.stride(0), BLOCK_N=BLOCK_N, num_warps=4)
        return y.view(*x.shape[:-1], hidden)
