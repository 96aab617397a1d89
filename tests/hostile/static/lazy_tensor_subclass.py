# Exploit 3 (lazy output): return a tensor subclass that computes its data only when the
# checker reads it, outside the timed region. Caught: subclassing torch.Tensor and the
# __class__ swap are both forbidden.
import torch
import torch.nn as nn


class LazyOut(torch.Tensor):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        out.__class__ = LazyOut
        return out
