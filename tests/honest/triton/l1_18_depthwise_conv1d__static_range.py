# Honest Triton candidate: depthwise conv1d (zero padding k // 2) with the taps unrolled by
# tl.static_range; one program per (image, channel, length block); bias fused.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _depthwise_conv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, channels, length,
                             KSIZE: tl.constexpr, BLOCK_L: tl.constexpr):
    bc = tl.program_id(0).to(tl.int64)           # image * channels + channel
    channel = bc % channels
    offs = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    row = x_ptr + bc * length
    acc = tl.zeros([BLOCK_L], dtype=tl.float32)
    for t in tl.static_range(KSIZE):
        pos = offs + (t - KSIZE // 2)
        x = tl.load(row + pos, mask=(pos >= 0) & (pos < length), other=0.0)
        acc += x * tl.load(w_ptr + channel * KSIZE + t)
    acc += tl.load(b_ptr + channel)
    tl.store(y_ptr + bc * length + offs, acc, mask=offs < length)


class ModelNew(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        # Same module, same parameter names (conv.weight, conv.bias) as the reference.
        self.conv = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2, groups=channels)
        self.kernel_size = kernel_size

    def forward(self, x):
        x = x.contiguous()
        batch, channels, length = x.shape
        y = torch.empty_like(x)
        BLOCK_L = 1024
        grid = (batch * channels, triton.cdiv(length, BLOCK_L))
        _depthwise_conv1d_kernel[grid](x, self.conv.weight, self.conv.bias, y, channels, length,
                                       KSIZE=self.kernel_size, BLOCK_L=BLOCK_L)
        return y
