# Honest CUDA candidate: RMSNorm with float4 loads and stores (scalar path when the hidden
# size is not a multiple of 4), shared-memory tree reduction, extension kept as self.op.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rmsnorm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

__device__ float block_reduce_sum(float v) {
    __shared__ float buf[THREADS];
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    return buf[0];
}

__global__ void rmsnorm_vec4_kernel(const float4* __restrict__ x, const float4* __restrict__ w,
                                    float4* __restrict__ y, int hidden_vec, int hidden, float eps) {
    const float4* row = x + (int64_t)blockIdx.x * hidden_vec;
    float4* out = y + (int64_t)blockIdx.x * hidden_vec;
    float sq = 0.0f;
    for (int i = threadIdx.x; i < hidden_vec; i += THREADS) {
        float4 v = row[i];
        sq += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    const float r = rsqrtf(block_reduce_sum(sq) / hidden + eps);
    for (int i = threadIdx.x; i < hidden_vec; i += THREADS) {
        float4 v = row[i], g = w[i];
        out[i] = make_float4(v.x * r * g.x, v.y * r * g.y, v.z * r * g.z, v.w * r * g.w);
    }
}

__global__ void rmsnorm_scalar_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      float* __restrict__ y, int hidden, float eps) {
    const float* row = x + (int64_t)blockIdx.x * hidden;
    float* out = y + (int64_t)blockIdx.x * hidden;
    float sq = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += THREADS) sq += row[i] * row[i];
    const float r = rsqrtf(block_reduce_sum(sq) / hidden + eps);
    for (int i = threadIdx.x; i < hidden; i += THREADS) out[i] = row[i] * r * w[i];
}

torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor weight, double eps) {
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    const int hidden = (int)xc.size(-1);
    const int64_t rows = xc.numel() / hidden;
    auto y = torch::empty_like(xc);
    if (hidden % 4 == 0) {
        rmsnorm_vec4_kernel<<<(unsigned)rows, THREADS>>>(
            reinterpret_cast<const float4*>(xc.data_ptr<float>()),
            reinterpret_cast<const float4*>(wc.data_ptr<float>()),
            reinterpret_cast<float4*>(y.data_ptr<float>()), hidden / 4, hidden, (float)eps);
    } else {
        rmsnorm_scalar_kernel<<<(unsigned)rows, THREADS>>>(
            xc.data_ptr<float>(), wc.data_ptr<float>(), y.data_ptr<float>(), hidden, (float)eps);
    }
    return y;
}
"""

rmsnorm = load_inline(
    name="honest_rmsnorm_vec4",
    cpp_sources="torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor weight, double eps);",
    cuda_sources=rmsnorm_source,
    functions=["rmsnorm_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps
        self.op = rmsnorm

    def forward(self, x):
        return self.op.rmsnorm_cuda(x, self.weight, self.eps)
