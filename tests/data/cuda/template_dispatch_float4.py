# Honest CUDA candidate for clamp_affine: a templated kernel under AT_DISPATCH_FLOATING_TYPES
# with a float4-vectorised fast path (another kernel) for aligned float32 inputs.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

template <typename scalar_t>
__global__ void clamp_affine_generic(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        scalar_t v = x[i] < scalar_t(0) ? scalar_t(0) : (x[i] > scalar_t(1) ? scalar_t(1) : x[i]);
        y[i] = v * scalar_t(2) + scalar_t(0.5);
    }
}

__global__ void clamp_affine_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        v.x = fminf(fmaxf(v.x, 0.f), 1.f) * 2.f + 0.5f;
        v.y = fminf(fmaxf(v.y, 0.f), 1.f) * 2.f + 0.5f;
        v.z = fminf(fmaxf(v.z, 0.f), 1.f) * 2.f + 0.5f;
        v.w = fminf(fmaxf(v.w, 0.f), 1.f) * 2.f + 0.5f;
        y[i] = v;
    }
}

torch::Tensor clamp_affine_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    auto stream = at::cuda::getCurrentCUDAStream();
    if (x.scalar_type() == at::kFloat && n % 4 == 0) {
        int64_t n4 = n / 4;
        clamp_affine_vec4<<<(n4 + 255) / 256, 256, 0, stream>>>(
            reinterpret_cast<const float4*>(x.data_ptr<float>()), reinterpret_cast<float4*>(y.data_ptr<float>()), n4);
    } else {
        AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "clamp_affine_generic", [&] {
            clamp_affine_generic<scalar_t><<<std::min<int64_t>((n + 255) / 256, 1024), 256, 0, stream>>>(
                x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
        });
    }
    return y;
}
"""

vec = load_inline(name="kb_gpu_template_float4", cpp_sources="torch::Tensor clamp_affine_cuda(torch::Tensor x);",
                  cuda_sources=source, functions=["clamp_affine_cuda"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return vec.clamp_affine_cuda(x.contiguous())
