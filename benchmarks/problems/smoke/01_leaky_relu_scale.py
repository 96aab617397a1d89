import torch
import torch.nn as nn
import torch.nn.functional as F

# 4096 x 16384 fp32 = 256 MiB per tensor: purely memory-bound.
BATCH = 4096
DIM = 16384


class Model(nn.Module):
    """y = leaky_relu(x, negative_slope) * scale"""

    def __init__(self, negative_slope, scale):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope) * self.scale


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return [0.01, 2.0]
