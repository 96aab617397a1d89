import torch
import torch.nn as nn

# Pre-LN MLP block, 1024 -> 4096 -> 1024 over 8192 tokens: 137 GFLOP.
TOKENS = 8192
HIDDEN = 1024
INTER = 4096


class Model(nn.Module):
    """y = x + W2 gelu(W1 layer_norm(x) + b1) + b2."""

    def __init__(self, hidden, inter):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, inter)
        self.fc2 = nn.Linear(inter, hidden)
        self.act = nn.GELU(approximate="tanh")

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, INTER]
