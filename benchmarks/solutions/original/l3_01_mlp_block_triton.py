# Triton, level-3 style: three kernels behind small helper modules -- a LayerNorm row kernel, and
# one tiled linear kernel with a constexpr epilogue (bias + tanh-GELU for fc1, bias + residual
# for fc2). ModelNew keeps the reference's parameter names, so the state_dict loads.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=mask)


@triton.jit
def _gelu_tanh(x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (2.0 - 2.0 / (tl.exp(2.0 * inner) + 1.0))


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, res_ptr, y_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  EPILOGUE: tl.constexpr):
    # y = x @ w^T + b, then EPILOGUE 1: gelu(y); 2: y + res. x (M, K), w (N, K), all contiguous.
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        x = tl.load(x_ptr + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + ks[:, None], mask=(rn[None, :] < N) & (ks[:, None] < K), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    out_mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    if EPILOGUE == 1:
        acc = _gelu_tanh(acc)
    if EPILOGUE == 2:
        acc += tl.load(res_ptr + offs, mask=out_mask, other=0.0)
    tl.store(y_ptr + offs, acc, mask=out_mask)


class TritonLayerNorm(nn.LayerNorm):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.shape[-1]
        layernorm_kernel[(x.shape[0],)](x, self.weight, self.bias, y, n, x.stride(0), self.eps,
                                        BLOCK=triton.next_power_of_2(n))
        return y


class TritonLinear(nn.Linear):
    def __init__(self, in_features, out_features, epilogue):
        super().__init__(in_features, out_features)
        self.epilogue = epilogue

    def forward(self, x, residual=None):
        M, K = x.shape
        N = self.out_features
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        linear_kernel[grid](x, self.weight, self.bias, residual if residual is not None else y, y, M, N, K,
                            BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, EPILOGUE=self.epilogue,
                            num_warps=4, num_stages=3)
        return y


class ModelNew(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.norm = TritonLayerNorm(hidden)
        self.fc1 = TritonLinear(hidden, inter, epilogue=1)
        self.fc2 = TritonLinear(inter, hidden, epilogue=2)

    def forward(self, x):
        x = x.contiguous()
        return self.fc2(self.fc1(self.norm(x)), residual=x)
