# Honest CUDA candidate for clamp_affine: the extension registers an operator in its own
# namespace with TORCH_LIBRARY (is_python_module=False) and forward calls torch.ops.kbgpu.*.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void op_clamp_affine_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fminf(fmaxf(x[i], 0.f), 1.f) * 2.f + 0.5f;
}

at::Tensor clamp_affine_op(const at::Tensor& x) {
    auto in = x.contiguous();
    auto y = at::empty_like(in);
    int64_t n = in.numel();
    op_clamp_affine_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        in.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}

TORCH_LIBRARY(kbgpu, m) { m.def("clamp_affine(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(kbgpu, CUDA, m) { m.impl("clamp_affine", &clamp_affine_op); }
"""

load_inline(name="kb_gpu_torch_ops", cpp_sources="", cuda_sources=source, is_python_module=False,
            verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.ops.kbgpu.clamp_affine(x)
