# Honest CUDA candidate (level-2/3 style): a helper nn.Module per layer, held in an
# nn.ModuleList under the reference's name, each calling one fused GEMM + bias (+ ReLU) kernel.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

linear_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16

template <bool RELU>
__global__ void fused_linear_kernel(const float* __restrict__ X, const float* __restrict__ W,
                                    const float* __restrict__ bias, float* __restrict__ Y,
                                    int M, int N, int K) {
    __shared__ float Xs[BK][BM];
    __shared__ float Ws[BK][BN];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
            const int r = i / BK, kk = i % BK, gk = k0 + kk;
            Xs[kk][r] = (row0 + r < M && gk < K) ? X[(int64_t)(row0 + r) * K + gk] : 0.0f;
            Ws[kk][r] = (col0 + r < N && gk < K) ? W[(int64_t)(col0 + r) * K + gk] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; ++kk)
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += Xs[kk][ty * 4 + i] * Ws[kk][tx * 4 + j];
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        const int r = row0 + ty * 4 + i;
        for (int j = 0; j < 4; ++j) {
            const int c = col0 + tx * 4 + j;
            if (r < M && c < N) {
                float v = acc[i][j] + bias[c];
                Y[(int64_t)r * N + c] = RELU ? fmaxf(v, 0.0f) : v;
            }
        }
    }
}

torch::Tensor fused_linear(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, bool relu) {
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    const int M = (int)xc.size(0), K = (int)xc.size(1), N = (int)wc.size(0);
    auto y = torch::empty({M, N}, xc.options());
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    if (relu)
        fused_linear_kernel<true><<<grid, 256>>>(xc.data_ptr<float>(), wc.data_ptr<float>(),
                                                 bc.data_ptr<float>(), y.data_ptr<float>(), M, N, K);
    else
        fused_linear_kernel<false><<<grid, 256>>>(xc.data_ptr<float>(), wc.data_ptr<float>(),
                                                  bc.data_ptr<float>(), y.data_ptr<float>(), M, N, K);
    return y;
}
"""

mlp_ext = load_inline(
    name="honest_mlp_fused_linear",
    cpp_sources="torch::Tensor fused_linear(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, bool relu);",
    cuda_sources=linear_source,
    functions=["fused_linear"],
    verbose=True,
    extra_cuda_cflags=["-O3"],
)


class FusedLinear(nn.Module):
    def __init__(self, in_features, out_features, relu):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        nn.init.kaiming_uniform_(self.weight, a=5 ** 0.5)
        nn.init.uniform_(self.bias, -in_features ** -0.5, in_features ** -0.5)
        self.relu = relu

    def forward(self, x):
        return mlp_ext.fused_linear(x, self.weight, self.bias, self.relu)


class ModelNew(nn.Module):
    def __init__(self, dims):
        super().__init__()
        n = len(dims) - 1
        self.layers = nn.ModuleList(FusedLinear(dims[i], dims[i + 1], relu=i + 1 < n) for i in range(n))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
