# Honest CUDA candidate for clamp_affine (LLM style): `self.op = fused` in __init__, the kernel
# launched on torch's current stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void fused_clamp_affine_kernel(const float* x, float* out, float lo, float hi,
                                          float scale, float shift, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(x[i], lo), hi) * scale + shift;
}

torch::Tensor fused_forward(torch::Tensor x, double scale, double shift) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto out = torch::empty_like(x);
    int64_t n = x.numel();
    int threads = 512;
    int blocks = (int)((n + threads - 1) / threads);
    fused_clamp_affine_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), 0.f, 1.f, (float)scale, (float)shift, n);
    return out;
}
"""

cpp_source = "torch::Tensor fused_forward(torch::Tensor x, double scale, double shift);"

fused = load_inline(name="kb_gpu_attr_handle", cpp_sources=cpp_source, cuda_sources=cuda_source,
                    functions=["fused_forward"], verbose=False, extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = fused
        self.scale = 2.0
        self.shift = 0.5

    def forward(self, x):
        return self.op.fused_forward(x.contiguous(), self.scale, self.shift)
