# Triton: 3x3 / stride 2 / padding 1 max pooling. Each program handles BLOCK output pixels of one
# (n, c) plane; the nine taps are a static_range loop, padding reads -inf.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_pool_kernel(x_ptr, y_ptr, H, W, OH, OW, BLOCK: tl.constexpr, KS: tl.constexpr,
                    STRIDE: tl.constexpr, PAD: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    valid = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    acc = tl.full((BLOCK,), float("-inf"), tl.float32)
    for kh in tl.static_range(KS):
        for kw in tl.static_range(KS):
            ih = oh * STRIDE - PAD + kh
            iw = ow * STRIDE - PAD + kw
            inside = valid & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(x_ptr + plane * H * W + ih * W + iw, mask=inside, other=float("-inf"))
            acc = tl.maximum(acc, v)
    tl.store(y_ptr + plane * OH * OW + offs, acc, mask=valid)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        OH = (H + 2 - 3) // 2 + 1
        OW = (W + 2 - 3) // 2 + 1
        y = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        BLOCK = 256
        grid = (N * C, triton.cdiv(OH * OW, BLOCK))
        max_pool_kernel[grid](x, y, H, W, OH, OW, BLOCK=BLOCK, KS=3, STRIDE=2, PAD=1)
        return y
