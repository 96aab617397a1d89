# Honest Triton candidate (custom kernel + a torch op for the rest): one program per row
# computes logsumexp - logit[target] over the 32k classes in blocks; the tiny mean over the
# batch is left to torch.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_nll_kernel(logits_ptr, target_ptr, loss_ptr, n_classes, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * stride_row
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_classes, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(base + cols, mask=cols < n_classes, other=float("-inf")))
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_classes, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < n_classes, other=float("-inf"))
        s += tl.exp(x - row_max)
    target = tl.load(target_ptr + row)
    picked = tl.load(base + target)
    tl.store(loss_ptr + row, tl.log(tl.sum(s, axis=0)) + row_max - picked)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        logits = logits.contiguous()
        n_rows, n_classes = logits.shape
        loss = torch.empty(n_rows, device=logits.device, dtype=torch.float32)
        _row_nll_kernel[(n_rows,)](logits, target, loss, n_classes, logits.stride(0),
                                   BLOCK=4096, num_warps=8)
        return loss.mean()
