import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _log_softmax_dim1_kernel(x_ptr, y_ptr, C, S, BLOCK_C: tl.constexpr,
                             BLOCK_S: tl.constexpr):
    # x viewed as (N, C, S = H*W). Grid: (pixel blocks, N). A program holds all C channels
    # (BLOCK_C >= C) of BLOCK_S neighbouring pixels: loads are contiguous along pixels,
    # and the reduction runs down the tile's columns.
    s = tl.program_id(0) * BLOCK_S + tl.arange(0, BLOCK_S)
    n = tl.program_id(1).to(tl.int64)
    c = tl.arange(0, BLOCK_C)
    offs = n * C * S + c[:, None] * S + s[None, :]
    mask = (c[:, None] < C) & (s[None, :] < S)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # Padded channels are -inf (they vanish from max and sum); padded pixels stay finite
    # (0) so no NaN is computed for them.
    x = tl.where(c[:, None] < C, x, -float("inf"))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m[None, :]), axis=0))
    tl.store(y_ptr + offs, x - lse[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        N, C = x.shape[0], x.shape[1]
        S = x[0, 0].numel()
        y = torch.empty_like(x)
        BLOCK_C = triton.next_power_of_2(C)
        BLOCK_S = max(16, min(128, 8192 // BLOCK_C))  # ~8K elements per tile
        grid = (triton.cdiv(S, BLOCK_S), N)
        _log_softmax_dim1_kernel[grid](x, y, C, S, BLOCK_C=BLOCK_C, BLOCK_S=BLOCK_S,
                                       num_warps=8)
        return y
