# Honest CUDA candidate: x @ W^T in a shared-memory tiled kernel (W read row-major, i.e. the
# transposed operand is tiled directly) with bias + ReLU fused into the store. nn.Linear
# stays as the parameter holder.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

linear_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16

__global__ void linear_bias_relu_kernel(const float* __restrict__ X, const float* __restrict__ W,
                                        const float* __restrict__ bias, float* __restrict__ Y,
                                        int M, int N, int K) {
    __shared__ float Xs[BK][BM + 1];
    __shared__ float Ws[BK][BN + 1];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
            int r = i / BK, kk = i % BK;
            int gr = row0 + r, gk = k0 + kk;
            Xs[kk][r] = (gr < M && gk < K) ? X[(int64_t)gr * K + gk] : 0.0f;
            int gn = col0 + r;
            Ws[kk][r] = (gn < N && gk < K) ? W[(int64_t)gn * K + gk] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            #pragma unroll
            for (int i = 0; i < 4; ++i) {
                float a = Xs[kk][ty * 4 + i];
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a * Ws[kk][tx * 4 + j];
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        int r = row0 + ty * 4 + i;
        if (r >= M) break;
        for (int j = 0; j < 4; ++j) {
            int c = col0 + tx * 4 + j;
            if (c < N) Y[(int64_t)r * N + c] = fmaxf(acc[i][j] + bias[c], 0.0f);
        }
    }
}

torch::Tensor linear_bias_relu_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    const int M = (int)xc.size(0), K = (int)xc.size(1), N = (int)wc.size(0);
    auto y = torch::empty({M, N}, xc.options());
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    linear_bias_relu_kernel<<<grid, 256>>>(xc.data_ptr<float>(), wc.data_ptr<float>(),
                                           bias.contiguous().data_ptr<float>(), y.data_ptr<float>(), M, N, K);
    return y;
}
"""

linear_ext = load_inline(
    name="honest_linear_bias_relu_tiled",
    cpp_sources="torch::Tensor linear_bias_relu_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);",
    cuda_sources=linear_source,
    functions=["linear_bias_relu_cuda"],
    verbose=True,
    extra_cuda_cflags=["-O3", "--use_fast_math"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return linear_ext.linear_bias_relu_cuda(x, self.linear.weight, self.linear.bias)
