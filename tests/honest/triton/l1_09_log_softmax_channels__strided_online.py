# Honest Triton candidate: log-softmax over dim 1 of NCHW without a permute -- each program
# owns a block of spatial positions of one image and walks the channels (stride H*W) with an
# online max / rescaled sum, then writes x - max - log(sum).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _log_softmax_dim1_kernel(x_ptr, y_ptr, channels, spatial, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    mask = offs < spatial
    base = b * channels * spatial + offs
    m = tl.full([BLOCK_S], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_S], dtype=tl.float32)
    for c in range(0, channels):
        x = tl.load(x_ptr + base + c * spatial, mask=mask, other=0.0)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    lse = m + tl.log(s)
    for c in range(0, channels):
        x = tl.load(x_ptr + base + c * spatial, mask=mask, other=0.0)
        tl.store(y_ptr + base + c * spatial, x - lse, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        batch, channels = x.shape[0], x.shape[1]
        spatial = x.numel() // (batch * channels)
        y = torch.empty_like(x)
        BLOCK_S = 256
        grid = (batch, triton.cdiv(spatial, BLOCK_S))
        _log_softmax_dim1_kernel[grid](x, y, channels, spatial, BLOCK_S=BLOCK_S, num_warps=4)
        return y
