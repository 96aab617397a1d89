# The memory tests' problem (docs/memory.md): a ReLU over a 32 MiB fp32 input, the shape of
# KernelBench's level-1 activations at a CPU-friendly size. ROWS is overridable per suite.
import torch
import torch.nn as nn

ROWS = 2048
COLS = 4096


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
