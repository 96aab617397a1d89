# Reachability patterns: `self.op = fused` in __init__, helper modules in nn.Sequential and
# nn.ModuleDict, a helper class inheriting from another helper of the file. Expected: both
# functions reachable (add_bias_cuda via the inherited forward, gelu_cuda via self.op).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
__global__ void add_bias_kernel(const float* x, const float* b, float* y, int64_t n, int64_t c) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + b[i % c];
}
__global__ void gelu_kernel(const float* x, float* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = 0.5f * v * (1.f + erff(v * 0.70710678f)); }
}
torch::Tensor add_bias_cuda(torch::Tensor x, torch::Tensor b) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    add_bias_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), n, b.numel());
    return y;
}
torch::Tensor gelu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    gelu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_src = """
torch::Tensor add_bias_cuda(torch::Tensor x, torch::Tensor b);
torch::Tensor gelu_cuda(torch::Tensor x);
"""

fused = load_inline(name="reach_bias_gelu", cpp_sources=cpp_src, cuda_sources=cuda_src,
                    functions=["add_bias_cuda", "gelu_cuda"], verbose=False)


class _Base(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(c))

    def forward(self, x):
        return fused.add_bias_cuda(x.contiguous(), self.bias)


class BiasBlock(_Base):
    pass


class ModelNew(nn.Module):
    def __init__(self, c=64):
        super().__init__()
        self.op = fused
        self.body = nn.Sequential(nn.Identity(), BiasBlock(c))
        self.heads = nn.ModuleDict({"main": nn.Identity()})

    def forward(self, x):
        x = self.heads["main"](self.body(x))
        return self.op.gelu_cuda(x)
