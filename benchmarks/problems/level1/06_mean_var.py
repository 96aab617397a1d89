import torch
import torch.nn as nn

# 16384 x 4096 fp32 = 256 MiB in; out: two 16384-vectors.
ROWS = 16384
COLS = 4096


class Model(nn.Module):
    """Per-row mean and unbiased variance (correction=1)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, correction=1)
        return mean, var


def get_inputs():
    # Offset mean: E[x^2] - E[x]^2 would lose digits here; a two-pass variance does not.
    return [torch.randn(ROWS, COLS) + 3.0]


def get_init_inputs():
    return []
