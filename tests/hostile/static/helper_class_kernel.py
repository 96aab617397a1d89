# Reachability through a helper class: forward calls a submodule built in __init__, whose
# forward calls a launcher method, which launches the kernel. The helper's other kernel is
# only used by a method nobody calls, so it is a decoy. No policy violation.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale, mask=mask)


@triton.jit
def _decoy_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass


class _Scaler(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def _launch(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        _scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, self.scale, BLOCK=1024)
        return y

    def _never_called(self, x):
        _decoy_kernel[(1,)](x, x.numel(), BLOCK=1024)

    def forward(self, x):
        return self._launch(x.contiguous())


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.scaler = _Scaler(2.0)

    def forward(self, x):
        return self.scaler(x)
