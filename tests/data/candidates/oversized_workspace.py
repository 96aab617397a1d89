# A candidate that asks for a 1 PiB workspace: out of host memory in the candidate, a
# runtime_error that says so (docs/memory.md#out-of-memory).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        workspace = torch.empty(1 << 50, dtype=torch.uint8)
        return torch.relu(x) + workspace[:1].float()
