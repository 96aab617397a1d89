# Honest C++ CPU candidate in a style LLMs write to "avoid allocations": one output buffer per
# shape, kept on the module and written in place by the extension (`out=`-style), so every call
# returns the same tensor. Correct call by call; a checker that holds several calls' outputs
# before looking at them (the timing witness did, 2026-12-03) sees only the last one.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

transpose_source = """
#include <torch/extension.h>

void transpose_into(torch::Tensor x, torch::Tensor out) {
    TORCH_CHECK(x.dim() == 2 && out.dim() == 2, "expected matrices");
    auto xc = x.contiguous();
    const int64_t rows = xc.size(0), cols = xc.size(1);
    TORCH_CHECK(out.size(0) == cols && out.size(1) == rows && out.is_contiguous(), "bad out");
    const float* in = xc.data_ptr<float>();
    float* y = out.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = in[r * cols + c];
}
"""

ext = load_inline(
    name="honest_cpu_transpose_out_buffer",
    cpp_sources=transpose_source,
    functions=["transpose_into"],
    verbose=False,
    extra_cflags=["-O2"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.buffers_by_shape = {}

    def forward(self, x):
        key = (x.shape[1], x.shape[0], x.dtype, x.device)
        out = self.buffers_by_shape.get(key)
        if out is None:
            out = torch.empty(x.shape[1], x.shape[0], dtype=x.dtype, device=x.device)
            self.buffers_by_shape[key] = out
        ext.transpose_into(x, out)
        return out
