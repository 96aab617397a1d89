# Honest Triton candidate: the kernel calls @triton.jit helpers (tanh built from exp, then the
# tanh-GELU formula); the grid is a lambda over the launch meta-parameters; a tl.constexpr
# module constant.
import torch
import torch.nn as nn
import triton
import triton.language as tl

# A global read inside @triton.jit must be a tl.constexpr: Triton >= 3.2 refuses a plain float
# ("Cannot access global variable ... from within @jit'ed function") when it compiles for the
# GPU; the CPU interpreter runs Python and accepts either.
SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)


@triton.jit
def _tanh(x):
    # tanh(x) = 1 - 2 / (exp(2x) + 1): finite for every x (exp overflow gives 1).
    return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)


@triton.jit
def _gelu_tanh(x):
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + _tanh(inner))


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, _gelu_tanh(x), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    gelu_kernel[grid](x, y, n_elements, BLOCK_SIZE=2048)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return gelu(x)
