# Honest C++ CPU candidate (load_inline with cpp_sources only): at::parallel_for over chunks
# of the flat tensor; module-level extension handle called from forward.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_source = """
#include <torch/extension.h>
#include <ATen/Parallel.h>

torch::Tensor leaky_relu_scale_cpu(torch::Tensor x, double slope, double scale) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "expected float32");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    const float s = (float)slope, k = (float)scale;
    at::parallel_for(0, xc.numel(), 16384, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            float v = in[i];
            out[i] = (v > 0.0f ? v : v * s) * k;
        }
    });
    return y;
}
"""

fused = load_inline(
    name="honest_cpu_leaky_relu_scale",
    cpp_sources=cpp_source,
    functions=["leaky_relu_scale_cpu"],
    verbose=False,
    extra_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, negative_slope, scale):
        super().__init__()
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, x):
        return fused.leaky_relu_scale_cpu(x, self.negative_slope, self.scale)
