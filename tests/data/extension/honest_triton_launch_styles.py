# Honest Triton candidate for clamp_affine in the launch styles LLMs write: an autotuned kernel
# (one config, so the CPU interpreter need not benchmark) launched by a helper function with a
# grid lambda over `meta`, calling a @triton.jit device helper; a @triton.heuristics kernel
# launched from a lambda stored on the model. Both must count as the candidate's launches.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _clamp01(v):
    return tl.minimum(tl.maximum(v, 0.0), 1.0)


@triton.autotune(configs=[triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def _clamp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, _clamp01(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _affine_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0 + 0.5)
    else:
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 0.5, mask=mask)


def _launch_clamp(x):
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    _clamp_kernel[grid](x, y, n)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = lambda x, y: _affine_kernel[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), BLOCK=128)

    def forward(self, x):
        y = _launch_clamp(x.contiguous())
        out = torch.empty_like(y)
        self.affine(y, out)
        return out
