# A problem with weights (nn.Linear): the target of tests/hostile/exploits/reference_weights_zeroed.py,
# which rewrites the reference model's weights during timing.
import torch
import torch.nn as nn

BATCH = 64
IN_FEATURES = 128
OUT_FEATURES = 96


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
