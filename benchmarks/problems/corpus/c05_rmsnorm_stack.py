import torch
import torch.nn as nn

# 8192 x 2048 fp32 = 64 MiB activations through four residual blocks.
TOKENS = 8192
HIDDEN = 2048
DEPTH = 4


class Block(nn.Module):
    """x + gamma * silu(rmsnorm(x) * weight): a matmul-free residual block."""

    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.gamma = nn.Parameter(0.5 + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        h = x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight
        return x + self.gamma * torch.nn.functional.silu(h)


class Model(nn.Module):
    """A level-3-style stack: `depth` residual blocks held in an nn.ModuleList."""

    def __init__(self, hidden, depth, eps):
        super().__init__()
        self.blocks = nn.ModuleList(Block(hidden, eps) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, DEPTH, 1e-6]
