# Honest CUDA candidate for clamp_affine: two load_inline modules, one per step, built by a
# helper function (the function names reach load_inline through its parameters).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

clamp_src = r"""
#include <torch/extension.h>
__global__ void clamp01_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fminf(fmaxf(x[i], 0.f), 1.f);
}
torch::Tensor clamp01(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    clamp01_kernel<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

affine_src = r"""
#include <torch/extension.h>
__global__ void scale_shift_kernel(float* y, float s, float t, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] * s + t;
}
torch::Tensor scale_shift_(torch::Tensor y, double s, double t) {
    int64_t n = y.numel();
    scale_shift_kernel<<<(n + 127) / 128, 128>>>(y.data_ptr<float>(), (float)s, (float)t, n);
    return y;
}
"""


def build(name, cpp_decl, source, function):
    return load_inline(name=name, cpp_sources=cpp_decl, cuda_sources=source, functions=[function],
                       verbose=False)


clamp_mod = build("kb_gpu_two_clamp", "torch::Tensor clamp01(torch::Tensor x);", clamp_src, "clamp01")
affine_mod = build("kb_gpu_two_affine", "torch::Tensor scale_shift_(torch::Tensor y, double s, double t);",
                   affine_src, "scale_shift_")


class ModelNew(nn.Module):
    def forward(self, x):
        y = clamp_mod.clamp01(x.contiguous())
        return affine_mod.scale_shift_(y, 2.0, 0.5)
