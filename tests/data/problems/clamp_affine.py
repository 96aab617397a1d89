# The target of the hostile exploit candidates (tests/hostile/exploits/): small, with U[0,1)
# inputs (so value-specific shortcuts are tempting) and a size constant (for alt_sizes).
import torch
import torch.nn as nn

N = 64


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(x, 0.0, 1.0) * 2.0 + 0.5


def get_inputs():
    return [torch.rand(N, N)]


def get_init_inputs():
    return []
