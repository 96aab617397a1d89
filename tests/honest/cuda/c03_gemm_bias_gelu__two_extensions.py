# Honest CUDA candidate: two load_inline modules in one file -- a register-blocked tiled GEMM
# (x @ W^T) and an elementwise bias + exact GELU + scale epilogue kernel.
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gemm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 32
#define PER_THREAD 4   // each thread computes 4 rows of one column

// Y[m, n] = sum_k X[m, k] * W[n, k]
__global__ void gemm_nt_kernel(const float* __restrict__ X, const float* __restrict__ W,
                               float* __restrict__ Y, int M, int N, int K) {
    __shared__ float xs[TILE][TILE];
    __shared__ float ws[TILE][TILE + 1];
    const int tx = threadIdx.x;            // 0..31: column in tile, and k for loads
    const int ty = threadIdx.y;            // 0..7
    const int col = blockIdx.x * TILE + tx;
    const int row0 = blockIdx.y * TILE;
    float acc[PER_THREAD] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += TILE) {
        for (int r = ty; r < TILE; r += blockDim.y) {
            int gk = k0 + tx;
            int gm = row0 + r;
            xs[r][tx] = (gm < M && gk < K) ? X[(int64_t)gm * K + gk] : 0.0f;
            int gn = blockIdx.x * TILE + r;
            ws[r][tx] = (gn < N && gk < K) ? W[(int64_t)gn * K + gk] : 0.0f;
        }
        __syncthreads();
        #pragma unroll 8
        for (int kk = 0; kk < TILE; ++kk) {
            float wv = ws[tx][kk];
            #pragma unroll
            for (int p = 0; p < PER_THREAD; ++p) acc[p] += xs[ty + p * 8][kk] * wv;
        }
        __syncthreads();
    }
    if (col < N) {
        #pragma unroll
        for (int p = 0; p < PER_THREAD; ++p) {
            int m = row0 + ty + p * 8;
            if (m < M) Y[(int64_t)m * N + col] = acc[p];
        }
    }
}

torch::Tensor gemm_nt(torch::Tensor x, torch::Tensor w) {
    auto xc = x.contiguous();
    auto wc = w.contiguous();
    const int M = (int)xc.size(0), K = (int)xc.size(1), N = (int)wc.size(0);
    auto y = torch::empty({M, N}, xc.options());
    dim3 block(TILE, 8);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_nt_kernel<<<grid, block>>>(xc.data_ptr<float>(), wc.data_ptr<float>(), y.data_ptr<float>(), M, N, K);
    return y;
}
"""

epilogue_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void bias_gelu_scale_kernel(float* __restrict__ y, const float* __restrict__ bias,
                                       int64_t n, int cols, float scale) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = y[i] + bias[i % cols];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)) * scale;
}

torch::Tensor bias_gelu_scale_(torch::Tensor y, torch::Tensor bias, double scale) {
    const int64_t n = y.numel();
    const int cols = (int)y.size(-1);
    const int threads = 256;
    bias_gelu_scale_kernel<<<(unsigned)((n + threads - 1) / threads), threads>>>(
        y.data_ptr<float>(), bias.contiguous().data_ptr<float>(), n, cols, (float)scale);
    return y;
}
"""

gemm = load_inline(
    name="honest_gemm_nt_tiled",
    cpp_sources="torch::Tensor gemm_nt(torch::Tensor x, torch::Tensor w);",
    cuda_sources=gemm_source,
    functions=["gemm_nt"],
    verbose=True,
    extra_cuda_cflags=["-O3"],
)

epilogue = load_inline(
    name="honest_bias_gelu_scale",
    cpp_sources="torch::Tensor bias_gelu_scale_(torch::Tensor y, torch::Tensor bias, double scale);",
    cuda_sources=epilogue_source,
    functions=["bias_gelu_scale_"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        y = gemm.gemm_nt(x, self.proj.weight)
        return epilogue.bias_gelu_scale_(y, self.proj.bias, self.scale)
