# Triton: one kernel computes the Huber terms and a partial sum per program; torch adds the
# few thousand partials and divides (one custom kernel + a torch reduction of its output).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def huber_partial_kernel(p_ptr, t_ptr, partial_ptr, n, beta, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = tl.load(p_ptr + offs, mask=mask, other=0.0) - tl.load(t_ptr + offs, mask=mask, other=0.0)
    ad = tl.abs(d)
    loss = tl.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)
    tl.store(partial_ptr + pid, tl.sum(tl.where(mask, loss, 0.0), axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.beta = 0.5

    def forward(self, pred, target):
        pred, target = pred.contiguous(), target.contiguous()
        n = pred.numel()
        BLOCK = 4096
        partial = torch.empty(triton.cdiv(n, BLOCK), device=pred.device, dtype=torch.float32)
        huber_partial_kernel[(partial.numel(),)](pred, target, partial, n, self.beta, BLOCK=BLOCK)
        return (partial.sum() / n).to(pred.dtype)
