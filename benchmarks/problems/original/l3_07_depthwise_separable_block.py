import torch
import torch.nn as nn

# MobileNet block on 32 x 128 x 56 x 56: depthwise 3x3, BN, ReLU6, pointwise 128 -> 256, BN, ReLU6.
BATCH = 32
IN_CHANNELS = 128
OUT_CHANNELS = 256
SIZE = 56


class Model(nn.Module):
    """Depthwise-separable convolution block (MobileNetV1), BatchNorm in training mode."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels, bias=False),
            nn.BatchNorm2d(in_channels), nn.ReLU6(),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels), nn.ReLU6(),
        )

    def forward(self, x):
        return self.block(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, SIZE, SIZE) * 2]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
