import torch
import torch.nn as nn

# 16384 x 4096 fp32 (256 MiB): centre each row, square, weight, sum: a per-row variance.
ROWS = 16384
COLS = 4096


class Model(nn.Module):
    """y[i] = sum_j w[j] * (x[i, j] - mean_j x[i, j])^2."""

    def __init__(self, cols):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(cols) / cols)

    def forward(self, x):
        centred = x - x.mean(dim=1, keepdim=True)
        return (centred * centred * self.weight).sum(dim=1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2 + 10]


def get_init_inputs():
    return [COLS]
