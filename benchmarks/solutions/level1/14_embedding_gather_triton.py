import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gather_rows_kernel(idx_ptr, w_ptr, y_ptr, dim, stride_w, BLOCK: tl.constexpr):
    # Grid: (tokens, column blocks). Each program copies one slice of one table row.
    tok = tl.program_id(0).to(tl.int64)
    row = tl.load(idx_ptr + tok)  # int64 id, as index_select takes
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < dim
    v = tl.load(w_ptr + row * stride_w + cols, mask=mask)
    tl.store(y_ptr + tok * dim + cols, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim))  # same RNG draw as the reference

    def forward(self, idx):
        flat = idx.reshape(-1).contiguous()
        w = self.weight
        dim = w.shape[1]
        y = torch.empty((flat.numel(), dim), device=w.device, dtype=w.dtype)
        BLOCK = min(1024, triton.next_power_of_2(dim))
        grid = (flat.numel(), triton.cdiv(dim, BLOCK))
        _gather_rows_kernel[grid](flat, w, y, dim, w.stride(0), BLOCK=BLOCK, num_warps=4)
        return y.view(*idx.shape, dim)
