# Honest Triton candidate: argmax per row over column chunks, keeping a per-lane running
# (max, index) and reducing it at the end with tl.argmax; the smallest index wins ties.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _argmax_rows_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride_row
    lanes = tl.arange(0, BLOCK)
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(base + cols, mask=cols < n_cols, other=float("-inf"))
        # Strictly greater: a lane keeps its earlier (smaller) index on a tie.
        better = x > best
        best = tl.where(better, x, best)
        best_idx = tl.where(better, cols, best_idx)
    row_max = tl.max(best, axis=0)
    candidates = tl.where(best == row_max, best_idx, n_cols)
    tl.store(out_ptr + row, tl.min(candidates, axis=0).to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x2 = x.contiguous().view(-1, x.shape[-1])
        out = torch.empty(x2.shape[0], device=x.device, dtype=torch.int64)
        _argmax_rows_kernel[(x2.shape[0],)](x2, out, x2.shape[1], x2.stride(0), BLOCK=1024, num_warps=4)
        return out.view(x.shape[:-1])
