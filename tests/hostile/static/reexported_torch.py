# Hostile (static policy): reaches forbidden torch APIs through a module that re-exports torch.
# torch.nn.functional imports torch, so `torch.nn.functional.torch` is torch itself: without
# resolving it, `torch.set_num_threads` (refused by name) ran, and the candidate took two threads
# for its own calls while the eager baseline was left with one (1.6x on the 2-core CPU machine).
import torch
import torch.nn as nn
import torch.nn.functional as F

_T = torch.nn.functional.torch


class ModelNew(nn.Module):
    def forward(self, a, b):
        _T.set_num_threads(2)
        y = torch.matmul(a, b)
        F.torch.set_num_threads(1)
        return y
