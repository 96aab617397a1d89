# Exploit 8 (reading expected outputs): search the garbage collector's objects for a tensor of
# the right shape, hoping it is the harness's expected output. Caught: `gc` is not importable.
import torch
import torch.nn as nn
import gc


class ModelNew(nn.Module):
    def forward(self, x):
        for obj in gc.get_objects():
            if isinstance(obj, torch.Tensor) and obj.shape == x.shape and obj is not x:
                return obj.clone()
        return x + 1.0
