# A problem whose outputs are all within the fp32 tolerance (atol 1e-4) of zero, on every input
# distribution: like KernelBench's 37_FrobeniusNorm or 39_L2Norm at full size, where each element
# is divided by the norm of ~1e9 of them (KernelBench issue #165). Returning zeros passes allclose
# here; the trivial_output check compares such outputs within 5% of their largest value.
import torch
import torch.nn as nn

N = 4096


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 3e-5


def get_inputs():
    return [torch.randn(8, N)]


def get_init_inputs():
    return []
