import torch
import torch.nn as nn
import torch.nn.functional as F

# Two projections 1024 -> 2816 over 8192 tokens (2 x 47 GFLOP), SiLU gate, product.
TOKENS = 8192
HIDDEN = 1024
INTER = 2816


class Model(nn.Module):
    """y = silu(x W_gate^T) * (x W_up^T) (LLaMA's MLP, before the down projection)."""

    def __init__(self, hidden, inter):
        super().__init__()
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)

    def forward(self, x):
        return F.silu(self.gate(x)) * self.up(x)


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, INTER]
