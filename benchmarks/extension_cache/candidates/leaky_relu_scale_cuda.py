# Honest CUDA load_inline candidate (benchmarks/extension_cache): y = leaky_relu(x) * scale with a
# float4 grid-stride kernel on the current stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>

__global__ void leaky_relu_scale_kernel(const float4* __restrict__ x, float4* __restrict__ y,
                                        float slope, float scale, int64_t n4) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4;
         i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = (v.x > 0.f ? v.x : v.x * slope) * scale;
        v.y = (v.y > 0.f ? v.y : v.y * slope) * scale;
        v.z = (v.z > 0.f ? v.z : v.z * slope) * scale;
        v.w = (v.w > 0.f ? v.w : v.w * slope) * scale;
        y[i] = v;
    }
}

__global__ void leaky_relu_scale_tail(const float* x, float* y, float slope, float scale,
                                      int64_t start, int64_t n) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = (x[i] > 0.f ? x[i] : x[i] * slope) * scale;
}

torch::Tensor leaky_relu_scale(torch::Tensor x, double slope, double scale) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const int64_t n = input.numel();
    const int64_t n4 = n / 4;
    auto stream = at::cuda::getCurrentCUDAStream();
    if (n4 > 0) {
        int blocks = (int)std::min<int64_t>((n4 + 255) / 256, 65535);
        leaky_relu_scale_kernel<<<blocks, 256, 0, stream>>>(
            reinterpret_cast<const float4*>(input.data_ptr<float>()),
            reinterpret_cast<float4*>(out.data_ptr<float>()), (float)slope, (float)scale, n4);
    }
    if (n % 4) {
        leaky_relu_scale_tail<<<1, 4, 0, stream>>>(input.data_ptr<float>(), out.data_ptr<float>(),
                                                  (float)slope, (float)scale, n4 * 4, n);
    }
    return out;
}
"""

CPP_SRC = "torch::Tensor leaky_relu_scale(torch::Tensor x, double slope, double scale);"

ext = load_inline(name="kb_cache_leaky_relu_scale", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                  functions=["leaky_relu_scale"], extra_cuda_cflags=["-O3", "--use_fast_math"])


class ModelNew(nn.Module):
    def __init__(self, negative_slope, scale):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        return ext.leaky_relu_scale(x, self.negative_slope, self.scale)
