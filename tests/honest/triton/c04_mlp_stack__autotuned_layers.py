# Honest Triton candidate (level-2/3 style): an autotuned linear kernel with the bias and an
# optional ReLU fused into the epilogue (ACTIVATION is a constexpr); one helper module per
# layer in an nn.ModuleList named like the reference's, so its weights load by name.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                   stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                   ACTIVATION: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm[:, None] * stride_xm + rk[None, :] * stride_xk
    # W is (N, K); read it as the (K, N) operand through its strides.
    w_ptrs = w_ptr + rk[:, None] * stride_wk + rn[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        w = tl.load(w_ptrs, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc, input_precision="ieee")
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if ACTIVATION == "relu":
        acc = tl.maximum(acc, 0.0)
    y_ptrs = y_ptr + rm[:, None] * stride_ym + rn[None, :] * stride_yn
    tl.store(y_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def fused_linear(x, weight, bias, activation):
    M, K = x.shape
    N = weight.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    _linear_kernel[grid](x, weight, bias, y, M, N, K,
                         x.stride(0), x.stride(1), weight.stride(0), weight.stride(1),
                         y.stride(0), y.stride(1), ACTIVATION=activation)
    return y


class TritonLinear(nn.Module):
    def __init__(self, in_features, out_features, activation):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * in_features ** -0.5)
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.activation = activation

    def forward(self, x):
        return fused_linear(x, self.weight, self.bias, self.activation)


class ModelNew(nn.Module):
    def __init__(self, dims):
        super().__init__()
        last = len(dims) - 2
        self.layers = nn.ModuleList(
            TritonLinear(a, b, "none" if i == last else "relu")
            for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
