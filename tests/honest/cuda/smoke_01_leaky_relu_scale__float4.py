# Honest CUDA candidate (KernelBench style): float4 loads with a scalar tail, grid-stride
# loop, module-level extension handle called from forward.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

leaky_relu_scale_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float leaky_scale(float v, float slope, float scale) {
    return (v > 0.0f ? v : v * slope) * scale;
}

__global__ void leaky_relu_scale_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ y,
                                             int64_t n_vec, float slope, float scale) {
    int64_t stride = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n_vec; i += stride) {
        float4 v = x[i];
        v.x = leaky_scale(v.x, slope, scale);
        v.y = leaky_scale(v.y, slope, scale);
        v.z = leaky_scale(v.z, slope, scale);
        v.w = leaky_scale(v.w, slope, scale);
        y[i] = v;
    }
}

__global__ void leaky_relu_scale_tail_kernel(const float* __restrict__ x, float* __restrict__ y,
                                             int64_t start, int64_t n, float slope, float scale) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = leaky_scale(x[i], slope, scale);
}

torch::Tensor leaky_relu_scale_cuda(torch::Tensor x, double slope, double scale) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "expected a float32 CUDA tensor");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    int64_t n_vec = n / 4;
    const int threads = 256;
    // torch's allocator returns 256-byte aligned storage; contiguous() keeps offset 0 here.
    bool aligned = (reinterpret_cast<uintptr_t>(xc.data_ptr<float>()) % 16) == 0;
    if (!aligned) n_vec = 0;
    if (n_vec > 0) {
        int blocks = (int)std::min<int64_t>((n_vec + threads - 1) / threads, 65535);
        leaky_relu_scale_vec4_kernel<<<blocks, threads>>>(
            reinterpret_cast<const float4*>(xc.data_ptr<float>()),
            reinterpret_cast<float4*>(y.data_ptr<float>()), n_vec, (float)slope, (float)scale);
    }
    int64_t start = n_vec * 4;
    if (start < n) {
        int blocks = (int)((n - start + threads - 1) / threads);
        leaky_relu_scale_tail_kernel<<<blocks, threads>>>(
            xc.data_ptr<float>(), y.data_ptr<float>(), start, n, (float)slope, (float)scale);
    }
    return y;
}
"""

leaky_relu_scale_cpp_source = "torch::Tensor leaky_relu_scale_cuda(torch::Tensor x, double slope, double scale);"

fused = load_inline(
    name="honest_leaky_relu_scale_vec4",
    cpp_sources=leaky_relu_scale_cpp_source,
    cuda_sources=leaky_relu_scale_source,
    functions=["leaky_relu_scale_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, negative_slope, scale):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        return fused.leaky_relu_scale_cuda(x, self.negative_slope, self.scale)
