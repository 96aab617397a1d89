import torch
import torch.nn as nn

# Conv1d 64 -> 128 channels, kernel 5, stride 2, on 32 x 16384 samples: 21 GFLOP.
BATCH = 32
IN_CHANNELS = 64
OUT_CHANNELS = 128
LENGTH = 16384


class Model(nn.Module):
    """A strided 1-D convolution (audio front end), padding 2."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=5, stride=2, padding=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, LENGTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
