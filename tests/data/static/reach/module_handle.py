# Reachability pattern: a module-level handle `fused = load_inline(...)` called in forward.
# Expected: relu_scale_cuda reachable.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void relu_scale_kernel(const float* __restrict__ x, float* __restrict__ y, float s, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f) * s;
}
torch::Tensor relu_scale_cuda(torch::Tensor x, double s) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    relu_scale_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), (float)s, n);
    return y;
}
"""
cpp_src = "torch::Tensor relu_scale_cuda(torch::Tensor x, double s);"

fused = load_inline(name="reach_relu_scale", cpp_sources=cpp_src, cuda_sources=cuda_src,
                    functions=["relu_scale_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, scale=2.0):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return fused.relu_scale_cuda(x.contiguous(), self.scale)
