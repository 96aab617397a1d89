import torch
import torch.nn as nn

# Three layers 1024 -> 2048 -> 2048 -> 512 on 2048 rows: ~21 GFLOP in fp32.
BATCH = 2048
IN_DIM = 1024
HIDDEN = 2048
OUT_DIM = 512


class Model(nn.Module):
    """A small MLP: Linear + ReLU for every layer but the last, which is Linear only."""

    def __init__(self, dims):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


def get_inputs():
    return [torch.randn(BATCH, IN_DIM)]


def get_init_inputs():
    return [[IN_DIM, HIDDEN, HIDDEN, OUT_DIM]]
