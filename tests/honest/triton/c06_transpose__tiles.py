# Honest Triton candidate: 2-D tiles loaded row-major and stored through tl.trans into the
# transposed position; both grid axes masked for sizes that are not multiples of the tile.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _transpose_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tile = tl.load(x_ptr + rows[:, None].to(tl.int64) * n_cols + cols[None, :], mask=mask)
    # y[c, r] = x[r, c]; y has n_rows columns.
    out_ptrs = y_ptr + cols[:, None].to(tl.int64) * n_rows + rows[None, :]
    out_mask = (cols[:, None] < n_cols) & (rows[None, :] < n_rows)
    tl.store(out_ptrs, tl.trans(tile), mask=out_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty((n_cols, n_rows), device=x.device, dtype=x.dtype)
        BLOCK_R, BLOCK_C = 64, 64
        grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(n_cols, BLOCK_C))
        _transpose_kernel[grid](x, y, n_rows, n_cols, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
        return y
