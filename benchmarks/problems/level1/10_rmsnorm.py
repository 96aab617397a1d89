import torch
import torch.nn as nn

# 8 x 2048 x 4096 fp32 = 256 MiB in, 256 MiB out.
BATCH = 8
SEQ = 2048
HIDDEN = 4096


class Model(nn.Module):
    """y = x * rsqrt(mean(x^2, dim=-1) + eps) * weight (LLaMA-style RMSNorm)."""

    def __init__(self, hidden, eps):
        super().__init__()
        # Not all ones, so a candidate that ignores the weight fails.
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps

    def forward(self, x):
        rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * rms * self.weight


def get_inputs():
    return [torch.randn(BATCH, SEQ, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, 1e-6]
