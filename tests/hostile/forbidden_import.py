# A working Triton candidate that imports a module outside the static allowlist (`os`, as LLM
# output often does for environment variables): refused as forbidden_api from its source alone,
# before torch is imported in its worker (lib/worker/source_verdict.hpp).
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = int(os.environ.get("ADD_ONE_BLOCK", "256"))


@triton.jit
def _add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        _add_one[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
        return out
