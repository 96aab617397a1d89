# A reference that asks for more memory than any machine has (1 PiB): the result must say the
# reference ran out of host memory, not blame the candidate (docs/memory.md#out-of-memory).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        scratch = torch.empty(1 << 50, dtype=torch.uint8)
        return x + scratch[:1].float()


def get_inputs():
    return [torch.randn(64, 64)]


def get_init_inputs():
    return []
