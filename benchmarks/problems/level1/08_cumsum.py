import torch
import torch.nn as nn

# 32768 x 2048 fp32 = 256 MiB in, 256 MiB out. Scan length 2048: prefix sums grow to
# ~sqrt(2048) = 45, so fp32 rounding differences between scan orders stay ~1e-5.
ROWS = 32768
LEN = 2048


class Model(nn.Module):
    """y = cumsum(x, dim=-1)"""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, LEN)]


def get_init_inputs():
    return []
