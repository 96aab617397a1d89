# Exploit 13 (decoy kernel): a Triton kernel is defined, and even launched from a method, but
# forward never reaches it and does the work with torch. Not a policy violation; the finding
# is that no kernel is reachable from ModelNew.forward.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add_one_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = _add_one_kernel  # stored, never used by forward

    def _unused_launch(self, x):
        y = torch.empty_like(x)
        _add_one_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y

    def forward(self, x):
        return x + 1.0
