import torch
import torch.nn as nn

# 64 x 1024 x 1024 fp32 = 256 MiB in, min over the middle dim.
BATCH = 64
DIM1 = 1024
DIM2 = 1024


class Model(nn.Module):
    """torch.min over dim 1 (values only): a strided reduction."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amin(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2) * 4]


def get_init_inputs():
    return []
