import torch
import torch.nn as nn

# y = relu(x @ W^T + b): x 8192 x 2048 = 64 MiB, W 4096 x 2048 = 32 MiB, y 128 MiB fp32;
# 137 GFLOP: compute-bound.
TOKENS = 8192
IN_FEATURES = 2048
OUT_FEATURES = 4096


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(TOKENS, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
