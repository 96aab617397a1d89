# Honest CUDA load_inline candidate (benchmarks/extension_cache): y = gelu(x + bias) + residual
# (exact erf GELU) fused in one kernel.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <ATen/cuda/CUDAContext.h>

__global__ void bias_gelu_residual_kernel(const float* x, const float* bias, const float* residual,
                                          float* out, int64_t n, int64_t hidden) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] + bias[i % hidden];
        out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)) + residual[i];
    }
}

torch::Tensor bias_gelu_residual(torch::Tensor x, torch::Tensor bias, torch::Tensor residual) {
    auto xc = x.contiguous();
    auto rc = residual.contiguous();
    auto out = torch::empty_like(xc);
    const int64_t n = xc.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    bias_gelu_residual_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), bias.contiguous().data_ptr<float>(), rc.data_ptr<float>(),
        out.data_ptr<float>(), n, bias.numel());
    return out;
}
"""

cpp_source = "torch::Tensor bias_gelu_residual(torch::Tensor x, torch::Tensor bias, torch::Tensor residual);"

fused = load_inline(
    name="kb_cache_bias_gelu_residual",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bias_gelu_residual"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(hidden))

    def forward(self, x, residual):
        return fused.bias_gelu_residual(x, self.bias, residual)
