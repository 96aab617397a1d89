# Honest mixed candidate (torch op + custom kernel): Q K^T through torch.matmul (cuBLAS), then
# one Triton kernel that fuses the scale and the row softmax over the scores. The custom
# kernel carries most of the memory traffic: it reads and writes the whole score matrix.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scaled_softmax_kernel(s_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=mask, other=float("-inf")) * scale
    s = s - tl.max(s, axis=0)
    e = tl.exp(s)
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k):
        scale = q.shape[-1] ** -0.5
        scores = torch.matmul(q, k.transpose(-2, -1)).contiguous()
        out = torch.empty_like(scores)
        n_cols = scores.shape[-1]
        n_rows = scores.numel() // n_cols
        BLOCK = triton.next_power_of_2(n_cols)
        _scaled_softmax_kernel[(n_rows,)](scores, out, n_cols, scale, BLOCK=BLOCK,
                                          num_warps=4 if BLOCK <= 2048 else 8)
        return out
