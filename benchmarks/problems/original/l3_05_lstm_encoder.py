import torch
import torch.nn as nn

# One LSTM layer, 256 steps, batch 64, input 256, hidden 512 (~26 GFLOP), last hidden state out.
BATCH = 64
STEPS = 256
INPUT = 256
HIDDEN = 512


class Model(nn.Module):
    """h_T of a single-layer LSTM, then a linear projection."""

    def __init__(self, input_size, hidden):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden, batch_first=True)
        self.out = nn.Linear(hidden, input_size)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return self.out(h[-1])


def get_inputs():
    return [torch.randn(BATCH, STEPS, INPUT)]


def get_init_inputs():
    return [INPUT, HIDDEN]
