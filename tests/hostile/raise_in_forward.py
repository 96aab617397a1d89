# An ordinary Python exception in forward: runtime_error with its traceback.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        raise ValueError("candidate gave up")
