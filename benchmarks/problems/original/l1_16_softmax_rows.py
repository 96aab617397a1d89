import torch
import torch.nn as nn

# 65536 x 1024 fp32 = 256 MiB in, 256 MiB out.
ROWS = 65536
COLS = 1024


class Model(nn.Module):
    """softmax over rows of 1024 (attention-like widths); values near 1e-3, not near zero."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS) * 0.5]


def get_init_inputs():
    return []
