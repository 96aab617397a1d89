# Exploit: the extension calls cuBLAS (through ATen's handle) for the real work and launches a
# trivial kernel of its own. cuBLAS's kernels are not the candidate's (docs/integrity.md).
# Caught on the GPU by: custom_kernel_share.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cublas_v2.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void touch_kernel(float* y) { if (threadIdx.x == 0) y[0] = y[0]; }
torch::Tensor clamp_affine_cuda(torch::Tensor x) {
    auto c = at::clamp(x, 0.0, 1.0);
    int n = x.size(0);
    auto eye2 = at::eye(n, x.options()).mul(2.0);
    auto y = at::full_like(c, 0.5);
    const float one = 1.f;
    // y = 2*I @ c + y: the affine part, by cuBLAS
    cublasSgemm(at::cuda::getCurrentCUDABlasHandle(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                c.data_ptr<float>(), n, eye2.data_ptr<float>(), n, &one, y.data_ptr<float>(), n);
    touch_kernel<<<1, 32, 0, at::cuda::getCurrentCUDAStream()>>>(y.data_ptr<float>());
    return y;
}
"""

ext = load_inline(name="kb_gpu_cublas_inside", cpp_sources="torch::Tensor clamp_affine_cuda(torch::Tensor x);",
                  cuda_sources=source, functions=["clamp_affine_cuda"], verbose=False,
                  extra_ldflags=["-lcublas"])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.clamp_affine_cuda(x.contiguous())
