import torch
import torch.nn as nn

# A GRUCell unrolled 64 steps over batch 256, input 512, hidden 1024 (~62 GFLOP).
BATCH = 256
STEPS = 64
INPUT = 512
HIDDEN = 1024


class Model(nn.Module):
    """h_t = GRUCell(x_t, h_{t-1}) from h_0 = 0; returns h_T (a Python loop of small GEMMs)."""

    def __init__(self, input_size, hidden):
        super().__init__()
        self.cell = nn.GRUCell(input_size, hidden)
        self.hidden = hidden

    def forward(self, x):
        h = x.new_zeros(x.shape[1], self.hidden)
        for t in range(x.shape[0]):
            h = self.cell(x[t], h)
        return h


def get_inputs():
    return [torch.randn(STEPS, BATCH, INPUT)]


def get_init_inputs():
    return [INPUT, HIDDEN]
