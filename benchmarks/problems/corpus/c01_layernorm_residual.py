import torch
import torch.nn as nn

# 16384 x 2048 fp32 = 128 MiB per tensor: two read, one written.
TOKENS = 16384
HIDDEN = 2048


class Model(nn.Module):
    """y = LayerNorm(x + residual) over the last dim, with a learned scale and shift."""

    def __init__(self, hidden, eps):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)
        # Not the default ones/zeros, so a candidate that drops the affine part fails.
        with torch.no_grad():
            self.norm.weight.add_(0.1 * torch.randn(hidden))
            self.norm.bias.add_(0.1 * torch.randn(hidden))

    def forward(self, x, residual):
        return self.norm(x + residual)


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN), torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, 1e-5]
