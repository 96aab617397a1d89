# A tiny problem for the harness's own tests: fast to run, easy to get right or wrong.
import torch
import torch.nn as nn

N = 64


class Model(nn.Module):
    def forward(self, x):
        return x + 1.0


def get_inputs():
    return [torch.randn(N, N)]


def get_init_inputs():
    return []
