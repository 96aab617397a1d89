# Honest CUDA candidate: a template over the vector width (float4 main body, scalar tail in
# the same kernel), grid-stride loop, launch bounds, fast-math flags.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

axpby_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float axpby_clamp(float x, float z, float a, float b, float lim) {
    return fminf(fmaxf(a * x + b * z, -lim), lim);
}

template <int VEC>
__global__ void __launch_bounds__(256) axpby_clamp_kernel(const float* __restrict__ x, const float* __restrict__ z,
                                                          float* __restrict__ y, int64_t n,
                                                          float a, float b, float lim) {
    // The float4 body covers n / 4 * 4 elements; the scalar loop does the rest (all of it for VEC 1).
    const int64_t n_vec = VEC == 4 ? n / 4 : 0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (VEC == 4) {
        const float4* x4 = reinterpret_cast<const float4*>(x);
        const float4* z4 = reinterpret_cast<const float4*>(z);
        float4* y4 = reinterpret_cast<float4*>(y);
        for (int64_t i = tid; i < n_vec; i += stride) {
            float4 xv = x4[i], zv = z4[i], r;
            r.x = axpby_clamp(xv.x, zv.x, a, b, lim);
            r.y = axpby_clamp(xv.y, zv.y, a, b, lim);
            r.z = axpby_clamp(xv.z, zv.z, a, b, lim);
            r.w = axpby_clamp(xv.w, zv.w, a, b, lim);
            y4[i] = r;
        }
    }
    for (int64_t i = n_vec * 4 + tid; i < n; i += stride) y[i] = axpby_clamp(x[i], z[i], a, b, lim);
}

torch::Tensor axpby_clamp_cuda(torch::Tensor x, torch::Tensor z, double a, double b, double lim) {
    auto xc = x.contiguous();
    auto zc = z.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    const int threads = 256;
    const int blocks = (int)std::min<int64_t>((n / 4 + threads - 1) / threads + 1, 8192);
    const bool aligned = reinterpret_cast<uintptr_t>(xc.data_ptr<float>()) % 16 == 0 &&
                         reinterpret_cast<uintptr_t>(zc.data_ptr<float>()) % 16 == 0;
    if (aligned)
        axpby_clamp_kernel<4><<<blocks, threads>>>(xc.data_ptr<float>(), zc.data_ptr<float>(),
                                                   y.data_ptr<float>(), n, (float)a, (float)b, (float)lim);
    else
        axpby_clamp_kernel<1><<<blocks, threads>>>(xc.data_ptr<float>(), zc.data_ptr<float>(),
                                                   y.data_ptr<float>(), n, (float)a, (float)b, (float)lim);
    return y;
}
"""

axpby = load_inline(
    name="honest_axpby_clamp_vec",
    cpp_sources="torch::Tensor axpby_clamp_cuda(torch::Tensor x, torch::Tensor z, double a, double b, double lim);",
    cuda_sources=axpby_source,
    functions=["axpby_clamp_cuda"],
    verbose=True,
    extra_cuda_cflags=["-O3", "--use_fast_math"],
)


class ModelNew(nn.Module):
    def __init__(self, alpha, beta, limit):
        super().__init__()
        self.alpha = alpha
        self.beta = beta
        self.limit = limit

    def forward(self, x, z):
        return axpby.axpby_clamp_cuda(x, z, self.alpha, self.beta, self.limit)
