# A loss whose reference reaches a torch module no snapshot list names: F.cross_entropy reads
# torch.nn._reduction.get_enum (tests/hostile/exploits/reduction_enum_patched.py).
import torch
import torch.nn as nn
import torch.nn.functional as F

N = 64
C = 32


class Model(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits, target)


def get_inputs():
    return [torch.randn(N, C), torch.softmax(torch.randn(N, C), dim=1)]


def get_init_inputs():
    return []
