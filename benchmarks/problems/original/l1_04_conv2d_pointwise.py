import torch
import torch.nn as nn

# 1x1 convolution 256 -> 256 channels on 16 x 56 x 56: 6.6 GFLOP.
BATCH = 16
IN_CHANNELS = 256
OUT_CHANNELS = 256
SIZE = 56


class Model(nn.Module):
    """Pointwise (1x1) convolution with bias, as in the middle of a ResNet bottleneck."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
