# Exploit 1 (side stream) inside C++: the CUDA source creates its own stream, which event
# timing on the current stream does not see. Caught: stream creation in the source string.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CUDA = r"""
#include <torch/extension.h>
torch::Tensor add_one(torch::Tensor x) {
  cudaStream_t side;
  cudaStreamCreate(&side);
  auto y = torch::empty_like(x);
  // ... launch on `side` and return at once ...
  return y;
}
"""

_ext = load_inline(name="side_stream_add_one", cpp_sources="torch::Tensor add_one(torch::Tensor x);",
                   cuda_sources=_CUDA, functions=["add_one"])


class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.add_one(x)
