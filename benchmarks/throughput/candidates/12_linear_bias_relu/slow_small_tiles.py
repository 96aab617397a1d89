# Honest but slow: 16x16 output tiles with K stepped 16 at a time and one warp per tile.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _linear_relu_small(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, BLOCK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK + tl.arange(0, BLOCK)
    rn = pid_n * BLOCK + tl.arange(0, BLOCK)
    rk = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.maximum(acc + bias[None, :], 0.0),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        w = self.linear.weight.contiguous()
        M, K = x2.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        _linear_relu_small[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x2, w, self.linear.bias, y, M, N, K,
                                                                   BLOCK=16, num_warps=1)
        return y.view(*x.shape[:-1], N)
