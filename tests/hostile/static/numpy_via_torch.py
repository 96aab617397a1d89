# numpy without importing it: torch's own modules hold it (torch.nn.functional.np,
# torch.storage.np). Read as numpy: placed apart, and its raw-memory doors refused.
import torch
import torch.nn.functional as F

_np = torch.nn.functional.np


def view(w):
    return F.np.asarray(w)


def strided(a):
    return _np.lib.stride_tricks.as_strided(a, shape=(1 << 20,), strides=(8,))


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x.cpu().numpy()
