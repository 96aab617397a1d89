import torch
import torch.nn as nn

# ConvTranspose2d 64 -> 32, kernel 4, stride 2 (2x upsampling) on 16 x 64 x 64: 4.3 GFLOP.
BATCH = 16
IN_CHANNELS = 64
OUT_CHANNELS = 32
SIZE = 64


class Model(nn.Module):
    """A learned 2x upsampling (decoder of a U-Net), padding 1."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=4, stride=2, padding=1)

    def forward(self, x):
        return self.deconv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, SIZE, SIZE)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
