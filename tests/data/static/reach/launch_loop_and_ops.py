# Reachability patterns: kernels launched from a C++ loop, and an operator registered with
# TORCH_LIBRARY in the extension's own namespace, called as torch.ops.<ns>.<op>. Expected:
# kbreach::cumulative_scale reachable.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void scale_step_kernel(float* y, float s, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] *= s;
}
torch::Tensor cumulative_scale(torch::Tensor x, int64_t steps) {
    auto y = x.clone();
    int64_t n = y.numel();
    auto stream = at::cuda::getCurrentCUDAStream();
    for (int64_t k = 0; k < steps; ++k)
        scale_step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(y.data_ptr<float>(), 1.5f, n);
    return y;
}
TORCH_LIBRARY(kbreach, m) { m.def("cumulative_scale(Tensor x, int steps) -> Tensor"); }
TORCH_LIBRARY_IMPL(kbreach, CUDA, m) { m.impl("cumulative_scale", &cumulative_scale); }
"""

load_inline(name="reach_ops", cpp_sources="", cuda_sources=cuda_src, is_python_module=False,
            verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.ops.kbreach.cumulative_scale(x.contiguous(), 3)
