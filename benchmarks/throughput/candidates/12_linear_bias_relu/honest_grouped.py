# Linear + bias + ReLU as one Triton GEMM with the epilogue fused; grouped tile order for L2 reuse.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_linear_relu(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                      sxm, sxk, swn, swk, sym, syn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * num_n
    group_start = (pid // width) * GROUP_M
    group_size = tl.minimum(num_m - group_start, GROUP_M)
    pid_m = group_start + (pid % width) % group_size
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * sxm + kk[None, :] * sxk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + kk[:, None] * swk + rn[None, :] * swn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    out = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, out, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1])
        w, b = self.linear.weight, self.linear.bias
        M, K = x2.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        fused_linear_relu[grid](x2, w, b, y, M, N, K, x2.stride(0), x2.stride(1), w.stride(0), w.stride(1),
                                y.stride(0), y.stride(1), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, GROUP_M=8,
                                num_warps=8, num_stages=3)
        return y.view(*x.shape[:-1], N)
