# Honest C++ CPU candidate: RMSNorm row by row (double accumulation of the squares), the
# extension stored as self.op, the weight under the reference's name.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rmsnorm_source = """
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <cmath>

torch::Tensor rmsnorm_cpu(torch::Tensor x, torch::Tensor weight, double eps) {
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t hidden = xc.size(-1);
    const int64_t rows = xc.numel() / hidden;
    const float* in = xc.data_ptr<float>();
    const float* w = wc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, rows, 16, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            const float* row = in + r * hidden;
            double sq = 0.0;
            for (int64_t c = 0; c < hidden; ++c) sq += (double)row[c] * row[c];
            const float rstd = (float)(1.0 / std::sqrt(sq / hidden + eps));
            for (int64_t c = 0; c < hidden; ++c) out[r * hidden + c] = row[c] * rstd * w[c];
        }
    });
    return y;
}
"""

rmsnorm = load_inline(
    name="honest_cpu_rmsnorm_rows",
    cpp_sources=rmsnorm_source,
    functions=["rmsnorm_cpu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden) + 0.1 * torch.randn(hidden))
        self.eps = eps
        self.op = rmsnorm

    def forward(self, x):
        return self.op.rmsnorm_cpu(x, self.weight, self.eps)
