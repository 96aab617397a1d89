# Reachability: the kernels live in helper blocks held in an nn.ModuleList, but forward never
# uses the list (torch does the work); a second extension is built only inside __init__ and
# called there. Expected: defined, none reachable.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_SRC = r"""
#include <torch/extension.h>
__global__ void relu_kernel(const float* x, float* y, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_cuda(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
"""

relu_ext = load_inline(name="unused_relu", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                       cuda_sources=_SRC, functions=["relu_cuda"])


class ReluBlock(nn.Module):
    def forward(self, x):
        return relu_ext.relu_cuda(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([ReluBlock(), ReluBlock()])
        init_ext = load_inline(name="init_only", cpp_sources="torch::Tensor warm(torch::Tensor x);",
                               cuda_sources=_SRC.replace("relu_cuda", "warm"), functions=["warm"])
        self.w = init_ext.warm(torch.zeros(4))

    def forward(self, x):
        return torch.relu(x)
