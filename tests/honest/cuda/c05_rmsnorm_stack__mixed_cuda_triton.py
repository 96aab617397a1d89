# Honest mixed candidate: a CUDA kernel (load_inline) computes each row's 1/rms, a Triton
# kernel applies the block (normalise, SiLU, gamma, residual). A custom block class holds the
# parameters and launches both; ModelNew keeps the blocks in an nn.ModuleList.
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

rstd_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void row_rstd_kernel(const float* __restrict__ x, float* __restrict__ rstd, int cols, float eps) {
    __shared__ float partial[256];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) sq += row[c] * row[c];
    partial[threadIdx.x] = sq;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) rstd[blockIdx.x] = rsqrtf(partial[0] / cols + eps);
}

torch::Tensor row_rstd(torch::Tensor x, double eps) {
    const int cols = (int)x.size(-1);
    const int64_t rows = x.numel() / cols;
    auto rstd = torch::empty({rows}, x.options());
    row_rstd_kernel<<<(unsigned)rows, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), rstd.data_ptr<float>(), cols, (float)eps);
    return rstd;
}
"""

rstd_ext = load_inline(
    name="honest_row_rstd_for_triton",
    cpp_sources="torch::Tensor row_rstd(torch::Tensor x, double eps);",
    cuda_sources=rstd_source,
    functions=["row_rstd"],
    verbose=False,
)


@triton.jit
def _silu(h):
    return h / (1.0 + tl.exp(-h))


@triton.jit
def _apply_block_kernel(x_ptr, rstd_ptr, w_ptr, g_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    r = tl.load(rstd_ptr + row)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    g = tl.load(g_ptr + cols, mask=mask, other=0.0)
    h = x * r * w
    tl.store(y_ptr + row * n_cols + cols, x + g * _silu(h), mask=mask)


class RMSResidualBlock(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.gamma = nn.Parameter(torch.full((hidden,), 0.5))
        self.eps = eps

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        rstd = rstd_ext.row_rstd(x2, self.eps)
        y = torch.empty_like(x2)
        BLOCK = 1024
        grid = (x2.shape[0], triton.cdiv(n_cols, BLOCK))
        _apply_block_kernel[grid](x2, rstd, self.weight, self.gamma, y, n_cols, BLOCK=BLOCK)
        return y.view(x.shape)


class ModelNew(nn.Module):
    def __init__(self, hidden, depth, eps):
        super().__init__()
        self.blocks = nn.ModuleList(RMSResidualBlock(hidden, eps) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
