# Wrong: clamps the scaled input from above only, and misreads log1p(exp(z)) as log(exp(z)) + 1
# for large z; both differ from the reference far beyond the tolerance.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, y_ptr, n, scale, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = tl.minimum(x * scale, hi)
    y = tl.where(z > 2.0, z + 1.0, tl.log(1.0 + tl.exp(z)))
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale, lo, hi):
        super().__init__()
        self.scale, self.hi = scale, hi

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _kernel[(triton.cdiv(n, 1024),)](x, y, n, self.scale, self.hi, BLOCK=1024)
        return y
