# A batched product written with torch.einsum (torch.functional, which calls torch._VF): the
# target of tests/hostile/exploits/einsum_vf_patched.py.
import torch
import torch.nn as nn

B, N = 8, 32


class Model(nn.Module):
    def forward(self, a, b):
        return torch.einsum("bij,jk->bik", a, b)


def get_inputs():
    return [torch.randn(B, N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
