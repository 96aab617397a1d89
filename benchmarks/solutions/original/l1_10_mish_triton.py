# Triton: Mish without tanh or log: with n = exp(x), tanh(softplus(x)) = n (n + 2) / (n (n + 2) + 2),
# exact algebra that needs one exp; above 20 softplus(x) = x (torch's threshold) and y = x.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tanh_softplus(x):
    n = tl.exp(tl.minimum(x, 20.0))
    p = n * (n + 2.0)
    return p / (p + 2.0)


@triton.jit
def mish_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x > 20.0, x, x * _tanh_softplus(x))
    tl.store(y_ptr + offs, y, mask=mask)


def mish(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    mish_kernel[grid](x, out, n, BLOCK_SIZE=2048, num_warps=8)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return mish(x)
