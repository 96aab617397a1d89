# Allocates and touches 4 GiB of host memory in forward; the suite sets a smaller
# memory_limit_gb, so the controller must kill it and say why.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        hoard = []
        for _ in range(16):
            hoard.append(bytearray(256 << 20))  # zero-filled: every page is touched
        return x + 1.0 + len(hoard) * 0
