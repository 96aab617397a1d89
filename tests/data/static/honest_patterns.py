# Honest patterns the static analysis must accept without a finding (zero false positives):
# autotune/heuristics stacks, a jit device function, an autograd.Function, a dataclass
# config, numpy constants, aliases, the current stream, and a kernel held in a dict.
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl
from triton import jit


@dataclass
class Config:
    block: int = 1024
    eps: float = 1e-6


@jit
def _square(x):
    return x * x


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
                 key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _rms_kernel(x_ptr, y_ptr, n, eps, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    r = tl.rsqrt(tl.sum(_square(x), axis=0) / n + eps)
    tl.store(y_ptr + offs, x * r, mask=offs < n)


def _scale_impl(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


_scale_kernel = triton.jit(_scale_impl)
_KERNELS = {"scale": _scale_kernel}
_SQRT_HALF = float(np.sqrt(0.5))


@lru_cache(maxsize=None)
def _grid(n: int, block: int):
    return (triton.cdiv(n, block),)


class _RmsFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        y = torch.empty_like(x)
        _rms_kernel[(1,)](x, y, x.numel(), eps)
        return y


class ModelNew(nn.Module):
    def __init__(self, config: Config | None = None):
        super().__init__()
        self.config = config or Config()
        self.weight = nn.Parameter(torch.ones(4))
        nn.init.uniform_(self.weight, -1 / math.sqrt(4), 1 / math.sqrt(4))

    def forward(self, x):
        stream = torch.cuda.current_stream() if x.is_cuda else None
        del stream
        y = _RmsFn.apply(x.contiguous(), self.config.eps)
        n = y.numel()
        _KERNELS["scale"][_grid(n, self.config.block)](y, n, BLOCK=self.config.block)
        y = F.relu(y) * _SQRT_HALF
        return y.type(x.dtype)
