import torch
import torch.nn as nn
import torch.nn.functional as F

# x = [a | b] on the last dim: 8192 x (2 x 4096) fp32 = 256 MiB in, 128 MiB out.
TOKENS = 8192
HIDDEN = 4096


class Model(nn.Module):
    """SwiGLU gate: a, b = x.chunk(2, dim=-1); y = silu(a) * b."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


def get_inputs():
    return [torch.randn(TOKENS, 2 * HIDDEN)]


def get_init_inputs():
    return []
