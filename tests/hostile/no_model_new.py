# Imports fine but defines no ModelNew.
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x + 1.0
