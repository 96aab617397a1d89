import torch
import torch.nn as nn

# 64 Mi elements fp32 = 256 MiB per tensor; N is a multiple of 4 on the GPU, not on the CPU
# sizes of the suites, so vectorised candidates must handle a tail.
N = 64 * 1024 * 1024


class Model(nn.Module):
    """y = clamp(alpha * x + beta * z, -limit, limit)"""

    def __init__(self, alpha, beta, limit):
        super().__init__()
        self.alpha = alpha
        self.beta = beta
        self.limit = limit

    def forward(self, x, z):
        return torch.clamp(self.alpha * x + self.beta * z, -self.limit, self.limit)


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return [1.5, -0.75, 2.0]
