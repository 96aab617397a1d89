import torch
import torch.nn as nn

# 32 matrices of 2048 x 1024 fp32 (256 MiB) times 32 vectors: memory-bound, ~65 us.
BATCH = 32
ROWS = 2048
COLS = 1024


class Model(nn.Module):
    """y[b] = A[b] @ x[b] for a batch of matrix-vector products."""

    def __init__(self):
        super().__init__()

    def forward(self, a, x):
        return torch.bmm(a, x.unsqueeze(-1)).squeeze(-1)


def get_inputs():
    return [torch.randn(BATCH, ROWS, COLS), torch.randn(BATCH, COLS) / COLS**0.5]


def get_init_inputs():
    return []
