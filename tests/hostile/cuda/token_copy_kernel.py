# Exploit (robust.md #14) in CUDA: the extension's own kernel only copies the result that torch
# ops computed inside the same C++ function (at::clamp etc. are torch's kernels, not the
# candidate's). Caught on the GPU by: custom_kernel_share (the copy is a small share).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
__global__ void copy_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n && i < 32) y[i] = x[i];
}
torch::Tensor clamp_affine_cuda(torch::Tensor x) {
    auto r = at::clamp(x, 0.0, 1.0).mul(2.0).add(0.5).exp().log();  // torch does the work
    auto y = r.clone();
    copy_kernel<<<1, 32>>>(r.data_ptr<float>(), y.data_ptr<float>(), r.numel());
    return y;
}
"""

ext = load_inline(name="kb_gpu_token_copy", cpp_sources="torch::Tensor clamp_affine_cuda(torch::Tensor x);",
                  cuda_sources=source, functions=["clamp_affine_cuda"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.clamp_affine_cuda(x.contiguous())
