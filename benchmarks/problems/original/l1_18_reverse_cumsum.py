import torch
import torch.nn as nn

# 8192 x 4096 fp32 = 128 MiB in, 128 MiB out.
ROWS = 8192
LEN = 4096


class Model(nn.Module):
    """Suffix sums along each row (returns-to-go, reverse scan)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.flip(torch.cumsum(torch.flip(x, dims=[1]), dim=1), dims=[1])


def get_inputs():
    # Mixed signs keep the suffix sums near sqrt(n), well inside fp32's exact range.
    return [torch.randn(ROWS, LEN)]


def get_init_inputs():
    return []
