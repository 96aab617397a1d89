import torch
import torch.nn as nn

# (N, C, H, W) = 32 x 128 x 128 x 128 fp32 = 256 MiB in and out. Log-softmax over the
# channel dim (per-pixel class scores, as in segmentation): the reduction stride is H*W.
BATCH = 32
CHANNELS = 128
HEIGHT = 128
WIDTH = 128


class Model(nn.Module):
    """y = log_softmax(x, dim=1)"""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log_softmax(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
