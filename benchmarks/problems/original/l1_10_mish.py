import torch
import torch.nn as nn
import torch.nn.functional as F

# 8192 x 8192 fp32: memory-bound, ~130 us.
ROWS = 8192
COLS = 8192


class Model(nn.Module):
    """y = x * tanh(softplus(x)) (Mish)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.mish(x)


def get_inputs():
    # Wide inputs reach softplus's linear region (x > 20) and its underflow side.
    return [torch.randn(ROWS, COLS) * 8]


def get_init_inputs():
    return []
