# Reachability through a load_inline module: forward calls one function of an extension built
# by a module-level helper; the extension's second function is never called (a decoy). No
# policy violation.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CPP = "torch::Tensor scale_forward(torch::Tensor x, double s);\ntorch::Tensor unused_fn(torch::Tensor x);"
_CUDA = r"""
#include <torch/extension.h>
__global__ void scale_kernel(const float* x, float* y, double s, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * s;
}
torch::Tensor scale_forward(torch::Tensor x, double s) {
  auto y = torch::empty_like(x);
  int64_t n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), s, n);
  return y;
}
torch::Tensor unused_fn(torch::Tensor x) { return x; }
"""
_FUNCTIONS = ["scale_forward", "unused_fn"]


def _build():
    return load_inline(name="kb_scale", cpp_sources=_CPP, cuda_sources=_CUDA,
                       functions=_FUNCTIONS, verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = _build()

    def forward(self, x):
        return self.ext.scale_forward(x.contiguous(), 2.0)
