# Row L2 normalisation, the whole row in registers: one read, one write.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2norm_kernel(x_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    tl.store(y_ptr + row * stride + cols, x / tl.maximum(norm, eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[-1]
        x2 = x.contiguous().view(-1, n)
        y = torch.empty_like(x2)
        BLOCK = triton.next_power_of_2(n)
        l2norm_kernel[(x2.shape[0],)](x2, y, n, x2.stride(0), 1e-12, BLOCK=BLOCK,
                                      num_warps=min(16, max(4, BLOCK // 256)))
        return y.view(x.shape)
