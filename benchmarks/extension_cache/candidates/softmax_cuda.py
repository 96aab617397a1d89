# Honest CUDA load_inline candidate (benchmarks/extension_cache): row softmax, one block per row,
# shared-memory reductions for the max and the sum.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOFTMAX_CUDA = r"""
#include <ATen/cuda/CUDAContext.h>

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float scratch[];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    scratch[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
        __syncthreads();
    }
    m = scratch[0];
    __syncthreads();
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(row[c] - m);
    scratch[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    const float inv = 1.f / scratch[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(row[c] - m) * inv;
}

torch::Tensor softmax_forward(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const int cols = (int)input.size(-1);
    const int rows = (int)(input.numel() / cols);
    const int threads = 512;
    softmax_rows<<<rows, threads, threads * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(
        input.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

softmax_ext = load_inline(name="kb_cache_softmax", cpp_sources=["torch::Tensor softmax_forward(torch::Tensor x);"],
                          cuda_sources=[SOFTMAX_CUDA], functions=["softmax_forward"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def forward(self, x):
        return softmax_ext.softmax_forward(x)
