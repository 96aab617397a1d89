import torch
import torch.nn as nn
import torch.nn.functional as F

# Conv2d 3x3 128 -> 128 on 8 x 64 x 64 (9.7 GFLOP), GroupNorm(32), SiLU.
BATCH = 8
CHANNELS = 128
SIZE = 64


class Model(nn.Module):
    """conv3x3 -> GroupNorm -> SiLU (a diffusion ResBlock's first half)."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.norm = nn.GroupNorm(32, channels)

    def forward(self, x):
        return F.silu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [CHANNELS]
