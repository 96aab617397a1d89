import torch
import torch.nn as nn

# (16384 x 1024) @ (1024 x 512) fp32: 17 GFLOP, ~0.35 ms at 50 TFLOP/s.
M = 16384
K = 1024
N = 512


class Model(nn.Module):
    """C = A @ B with a tall, skinny A (many tokens through a narrow projection)."""

    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    # Zero-mean operands scaled by 1/sqrt(K) keep |C| near 1 at every K.
    return [torch.randn(M, K), torch.randn(K, N) / K**0.5]


def get_init_inputs():
    return []
