# Honest Triton candidate: a persistent kernel -- a fixed number of programs, each striding
# over the blocks of the flat tensor; the clamp through tl.minimum / tl.maximum.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _axpby_clamp_kernel(x_ptr, z_ptr, y_ptr, n, alpha, beta, limit, num_programs,
                        BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n_blocks = tl.cdiv(n, BLOCK)
    for block in range(pid, n_blocks, num_programs):
        offs = block * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        z = tl.load(z_ptr + offs, mask=mask)
        v = alpha * x + beta * z
        tl.store(y_ptr + offs, tl.minimum(tl.maximum(v, -limit), limit), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, alpha, beta, limit):
        super().__init__()
        self.alpha = alpha
        self.beta = beta
        self.limit = limit

    def forward(self, x, z):
        x = x.contiguous()
        z = z.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 4096
        num_programs = min(triton.cdiv(n, BLOCK), 132 * 4)
        _axpby_clamp_kernel[(num_programs,)](x, z, y, n, self.alpha, self.beta, self.limit,
                                             num_programs, BLOCK=BLOCK, num_warps=8)
        return y
