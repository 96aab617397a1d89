import torch
import torch.nn as nn
import torch.nn.functional as F

# Conv2d 3x3 64 -> 64 on 16 x 112 x 112, ReLU, 2x2 max pool: 29 GFLOP.
BATCH = 16
CHANNELS = 64
SIZE = 112


class Model(nn.Module):
    """conv3x3 -> ReLU -> max_pool2d(2) (a VGG stage)."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x):
        return F.max_pool2d(F.relu(self.conv(x)), 2)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [CHANNELS]
