# Two outputs, as KernelBench problems that return a tuple (values and indices of a reduction):
# the target of tests/hostile/exploits/lazy_tuple_outputs.py.
import torch
import torch.nn as nn

N = 64


class Model(nn.Module):
    def forward(self, x):
        y = torch.clamp(x, 0.0, 1.0) * 2.0 + 0.5
        return y, y.sum(dim=1)


def get_inputs():
    return [torch.rand(N, N)]


def get_init_inputs():
    return []
