import torch
import torch.nn as nn

# x 16 x 64 x 256 x 256 fp32 = 256 MiB; 3x3 window, stride 2, padding 1 -> y 64 MiB.
BATCH = 16
CHANNELS = 64
HEIGHT = 256
WIDTH = 256


class Model(nn.Module):
    """nn.AvgPool2d with the default count_include_pad=True (padding counts as zeros)."""

    def __init__(self, kernel_size, stride, padding):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [3, 2, 1]
