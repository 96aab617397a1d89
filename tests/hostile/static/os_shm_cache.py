# Exploit 5 (output caching across calls): keep outputs in /dev/shm keyed by a hash of the
# input. Caught: `os` is not importable, and open() is forbidden.
import os
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        key = "/dev/shm/kb-" + str(hash(x.sum().item()))
        if os.path.exists(key):
            with open(key, "rb") as f:
                return torch.frombuffer(bytearray(f.read()), dtype=x.dtype).view_as(x)
        return x + 1.0
