# Honest CUDA candidate: a helper nn.Module (no parameters of its own) wraps the extension;
# ModelNew keeps the bias under the reference's name and calls the helper in forward.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void bias_gelu_residual_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                          const float* __restrict__ residual, float* __restrict__ out,
                                          int64_t n, int64_t hidden) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i] + bias[i % hidden];
    // Exact GELU, as F.gelu's default.
    float g = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    out[i] = g + residual[i];
}

torch::Tensor bias_gelu_residual(torch::Tensor x, torch::Tensor bias, torch::Tensor residual) {
    auto xc = x.contiguous();
    auto rc = residual.contiguous();
    auto out = torch::empty_like(xc);
    int64_t n = xc.numel();
    int64_t hidden = bias.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    auto stream = at::cuda::getCurrentCUDAStream();
    bias_gelu_residual_kernel<<<(unsigned)blocks, threads, 0, stream>>>(
        xc.data_ptr<float>(), bias.contiguous().data_ptr<float>(), rc.data_ptr<float>(),
        out.data_ptr<float>(), n, hidden);
    return out;
}
"""

cpp_source = "torch::Tensor bias_gelu_residual(torch::Tensor x, torch::Tensor bias, torch::Tensor residual);"

bias_gelu_residual = load_inline(
    name="honest_bias_gelu_residual",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bias_gelu_residual"],
    verbose=True,
)


class BiasGeluResidual(nn.Module):
    def forward(self, x, bias, residual):
        return bias_gelu_residual.bias_gelu_residual(x, bias, residual)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(hidden))
        self.epilogue = BiasGeluResidual()

    def forward(self, x, residual):
        return self.epilogue(x, self.bias, residual)
