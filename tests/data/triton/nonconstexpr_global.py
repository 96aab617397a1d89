# Fixture for tests/honest/triton_compile_check.py (not a candidate of any shipped suite): runs
# in Triton's CPU interpreter, refused by Triton's compiler for the GPU, because the @triton.jit
# helper reads a plain float global (it must be a tl.constexpr). This is the H200 failure of
# the first l1_01_gelu_tanh__jit_helpers.py (2026-12-01, honest-gpu-partial.txt).
import torch
import torch.nn as nn
import triton
import triton.language as tl

SCALE = 0.5


@triton.jit
def _scaled(x):
    return SCALE * x


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, _scaled(tl.load(x_ptr + offs, mask=mask)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
