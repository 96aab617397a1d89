# Honest C++ CPU candidate: a templated row scan under AT_DISPATCH_FLOATING_TYPES, accumulating
# in at::acc_type (double for float, as torch's CPU cumsum does), rows split by parallel_for.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scan_source = """
#include <torch/extension.h>
#include <ATen/AccumulateType.h>
#include <ATen/Parallel.h>

template <typename scalar_t>
void scan_rows(const scalar_t* in, scalar_t* out, int64_t rows, int64_t len) {
    using acc_t = at::acc_type<scalar_t, false>;
    at::parallel_for(0, rows, 1, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            acc_t running = 0;
            for (int64_t c = 0; c < len; ++c) {
                running += static_cast<acc_t>(in[r * len + c]);
                out[r * len + c] = static_cast<scalar_t>(running);
            }
        }
    });
}

torch::Tensor cumsum_last_dim(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t len = xc.size(-1);
    const int64_t rows = len == 0 ? 0 : xc.numel() / len;
    AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "cumsum_last_dim", [&] {
        scan_rows<scalar_t>(xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), rows, len);
    });
    return y;
}
"""

scan = load_inline(
    name="honest_cpu_cumsum_scan",
    cpp_sources=scan_source,
    functions=["cumsum_last_dim"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return scan.cumsum_last_dim(x)
