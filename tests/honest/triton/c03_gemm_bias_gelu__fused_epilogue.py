# Honest Triton candidate: one kernel -- tiled x @ W^T with bias, exact GELU (erf) and the
# scale fused into the epilogue; the erf-GELU is a @triton.jit helper.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gelu_erf(v):
    return 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))


@triton.jit
def _gemm_bias_gelu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, scale,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        x = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc, input_precision="ieee")
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    out = _gelu_erf(acc + bias[None, :]) * scale
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        w = self.proj.weight.contiguous()
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
        grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(M, BLOCK_M))
        _gemm_bias_gelu_kernel[grid](x, w, self.proj.bias, y, M, N, K, self.scale,
                                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                     num_warps=4, num_stages=3)
        return y
