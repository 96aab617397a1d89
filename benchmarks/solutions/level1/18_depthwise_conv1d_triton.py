import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _dwconv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, L, KSIZE: tl.constexpr,
                     PAD: tl.constexpr, BLOCK: tl.constexpr):
    # Grid: (N*C rows, length blocks). One channel per program, so its KSIZE taps and
    # bias are scalars; the shifted input windows overlap and are served from L1/L2.
    plane = tl.program_id(0).to(tl.int64)
    c = plane % C
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x_row = x_ptr + plane * L
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in tl.static_range(KSIZE):
        src = pos + (k - PAD)
        # Out-of-range taps load 0: that is the zero padding.
        xv = tl.load(x_row + src, mask=(src >= 0) & (src < L), other=0.0)
        acc += tl.load(w_ptr + c * KSIZE + k) * xv
    acc += tl.load(b_ptr + c)
    tl.store(y_ptr + plane * L + pos, acc, mask=pos < L)


class ModelNew(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        # Parameter holder only, so names match the reference (conv.weight, conv.bias).
        self.conv = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2,
                              groups=channels)

    def forward(self, x):
        x = x.contiguous()
        N, C, L = x.shape
        w = self.conv.weight.contiguous()  # (C, 1, K)
        K = w.shape[-1]
        y = torch.empty_like(x)
        BLOCK = 1024
        grid = (N * C, triton.cdiv(L, BLOCK))
        _dwconv1d_kernel[grid](x, w, self.conv.bias, y, C, L, KSIZE=K, PAD=K // 2,
                               BLOCK=BLOCK, num_warps=4)
        return y
