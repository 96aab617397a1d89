# Native source policy: the extension registers a kernel for aten::mm, which changes what the
# reference and the baselines run (the Python-side torch.library is forbidden too), and times
# itself with its own events. Caught: TORCH_LIBRARY_IMPL(aten, ...) and cudaEventElapsedTime.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_SRC = r"""
#include <torch/extension.h>
#include <torch/library.h>
at::Tensor fake_mm(const at::Tensor& a, const at::Tensor& b) { return at::zeros({a.size(0), b.size(1)}); }
TORCH_LIBRARY_IMPL(aten, CUDA, m) { m.impl("mm", &fake_mm); }
float elapsed(cudaEvent_t a, cudaEvent_t b) { float ms; cudaEventElapsedTime(&ms, a, b); return ms; }
"""

load_inline(name="aten_override", cpp_sources=_SRC, cuda_sources="", is_python_module=False)


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.mm(a, b)
