import torch
import torch.nn as nn
import torch.nn.functional as F

# 16384 tokens x 4096 hidden fp32 = 256 MiB per tensor (x and residual).
TOKENS = 16384
HIDDEN = 4096


class Model(nn.Module):
    """y = gelu(x + bias) + residual, exact (erf) GELU."""

    def __init__(self, hidden):
        super().__init__()
        # randn (not zeros) so a candidate only matches if it seeds/copies params right.
        self.bias = nn.Parameter(torch.randn(hidden))

    def forward(self, x, residual):
        return F.gelu(x + self.bias) + residual


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN), torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN]
