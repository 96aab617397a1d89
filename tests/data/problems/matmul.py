# A problem where returning a copy is far cheaper than computing (the content-keyed cache
# exploits, tests/hostile/exploits/content_*.py): N x N by N x N, O(N^3) work against an O(N^2)
# copy. N = 384 keeps a CPU call to a few milliseconds.
import torch
import torch.nn as nn

N = 384

# One intra-op thread: on a shared 2-core machine a descheduled OpenMP worker adds a whole
# scheduler tick (8-24 ms) to a ~1 ms sample, and the speedups become noise.
torch.set_num_threads(1)


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
