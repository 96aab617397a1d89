# Honest C++ CPU candidate (level-3 style): a custom block class in an nn.ModuleList, each
# block's forward calling one fused C++ function (rms, normalise, SiLU, gamma, residual).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

block_source = """
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <cmath>

torch::Tensor rms_silu_residual(torch::Tensor x, torch::Tensor weight, torch::Tensor gamma, double eps) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t hidden = xc.size(-1);
    const int64_t rows = xc.numel() / hidden;
    const float* in = xc.data_ptr<float>();
    const float* w = weight.contiguous().data_ptr<float>();
    const float* g = gamma.contiguous().data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, rows, 8, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            const float* row = in + r * hidden;
            double sq = 0.0;
            for (int64_t c = 0; c < hidden; ++c) sq += (double)row[c] * row[c];
            const float rstd = (float)(1.0 / std::sqrt(sq / hidden + eps));
            for (int64_t c = 0; c < hidden; ++c) {
                const float h = row[c] * rstd * w[c];
                const float silu = h / (1.0f + std::exp(-h));
                out[r * hidden + c] = row[c] + g[c] * silu;
            }
        }
    });
    return y;
}
"""

block_ext = load_inline(
    name="honest_cpu_rms_silu_residual",
    cpp_sources=block_source,
    functions=["rms_silu_residual"],
    verbose=True,
)


class CppBlock(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.gamma = nn.Parameter(torch.full((hidden,), 0.5))
        self.eps = eps

    def forward(self, x):
        return block_ext.rms_silu_residual(x, self.weight, self.gamma, self.eps)


class ModelNew(nn.Module):
    def __init__(self, hidden, depth, eps):
        super().__init__()
        self.blocks = nn.ModuleList(CppBlock(hidden, eps) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
