# Honest load_inline candidate for clamp_affine, built for the CPU (C++ only, no CUDA), in the
# shapes LLM-written CUDA candidates take: two extension modules, one with two functions and a
# module-level handle, the other registering an operator in its own TORCH_LIBRARY namespace
# (called as torch.ops.kbcpu.add_scalar); a helper nn.Module in an nn.ModuleList calls the
# first module through `self.ext`. Every function is called, so every one must count as a
# launch of the candidate's own code (tests/e2e/test_run_extensions.cpp).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CLAMP_AFFINE = r"""
#include <torch/extension.h>
torch::Tensor clamp01(torch::Tensor x) {
  auto in = x.contiguous();
  auto y = torch::empty_like(in);
  const float* src = in.data_ptr<float>();
  float* dst = y.data_ptr<float>();
  for (int64_t i = 0; i < in.numel(); ++i) dst[i] = src[i] < 0.f ? 0.f : (src[i] > 1.f ? 1.f : src[i]);
  return y;
}
torch::Tensor affine(torch::Tensor x, double a, double b) {
  auto in = x.contiguous();
  auto y = torch::empty_like(in);
  const float* src = in.data_ptr<float>();
  float* dst = y.data_ptr<float>();
  for (int64_t i = 0; i < in.numel(); ++i) dst[i] = (float)a * src[i] + (float)b;
  return y;
}
"""

_ADD_SCALAR = r"""
#include <torch/extension.h>
#include <torch/library.h>
at::Tensor add_scalar(const at::Tensor& x, double s) {
  auto in = x.contiguous();
  auto y = at::empty_like(in);
  const float* src = in.data_ptr<float>();
  float* dst = y.data_ptr<float>();
  for (int64_t i = 0; i < in.numel(); ++i) dst[i] = src[i] + (float)s;
  return y;
}
TORCH_LIBRARY(kbcpu, m) { m.def("add_scalar(Tensor x, float s) -> Tensor"); }
TORCH_LIBRARY_IMPL(kbcpu, CPU, m) { m.impl("add_scalar", &add_scalar); }
"""

fused = load_inline(name="kb_cpu_clamp_affine", cpp_sources=_CLAMP_AFFINE,
                    functions=["clamp01", "affine"], verbose=False, extra_cflags=["-O2"])
load_inline(name="kb_cpu_add_scalar", cpp_sources=_ADD_SCALAR, is_python_module=False,
            verbose=False)


class ClampBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = fused

    def forward(self, x):
        return self.ext.clamp01(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([ClampBlock(), ClampBlock()])  # clamping twice is harmless

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        x = fused.affine(x, 2.0, 0.0)
        return torch.ops.kbcpu.add_scalar(x, 0.5)
