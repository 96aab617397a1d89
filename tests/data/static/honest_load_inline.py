# Honest KernelBench-style CUDA candidate: the extension is built at module level, stored on
# the model in __init__, and its function called in forward. The CUDA source launches on the
# current stream. Expected: no finding; axpy_cuda reachable.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

axpy_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void axpy_kernel(const float* x, const float* y, float* out, float alpha, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = alpha * x[i] + y[i];
}

torch::Tensor axpy_cuda(torch::Tensor x, torch::Tensor y, double alpha) {
    auto out = torch::empty_like(x);
    int64_t n = x.numel();
    int threads = 256;
    int blocks = (int)((n + threads - 1) / threads);
    axpy_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), out.data_ptr<float>(), (float)alpha, n);
    return out;
}
"""

axpy_cpp_source = "torch::Tensor axpy_cuda(torch::Tensor x, torch::Tensor y, double alpha);"

axpy = load_inline(
    name="kb_axpy",
    cpp_sources=axpy_cpp_source,
    cuda_sources=axpy_source,
    functions=["axpy_cuda"],
    verbose=False,
    extra_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, alpha: float = 2.0) -> None:
        super().__init__()
        self.alpha = alpha
        self.axpy = axpy

    def forward(self, x, y):
        return self.axpy.axpy_cuda(x.contiguous(), y.contiguous(), self.alpha)
