# Honest mixed candidate: a Triton kernel computes each row's mean and 1/std of x + residual
# (looping over the row in blocks, two passes), a CUDA kernel (load_inline) then normalises
# with the affine parameters.
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline


@triton.jit
def _add_row_stats_kernel(x_ptr, r_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        acc += tl.load(x_ptr + base + cols, mask=m, other=0.0) + tl.load(r_ptr + base + cols, mask=m, other=0.0)
    mean = tl.sum(acc, axis=0) / n_cols
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        v = tl.load(x_ptr + base + cols, mask=m, other=0.0) + tl.load(r_ptr + base + cols, mask=m, other=0.0)
        d = tl.where(m, v - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / n_cols
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, 1.0 / tl.sqrt(var + eps))


apply_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void normalize_affine_kernel(const float* __restrict__ x, const float* __restrict__ r,
                                        const float* __restrict__ mean, const float* __restrict__ rstd,
                                        const float* __restrict__ w, const float* __restrict__ b,
                                        float* __restrict__ y, int64_t n, int cols) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t row = i / cols;
    int c = (int)(i % cols);
    y[i] = (x[i] + r[i] - mean[row]) * rstd[row] * w[c] + b[c];
}

torch::Tensor normalize_affine(torch::Tensor x, torch::Tensor r, torch::Tensor mean, torch::Tensor rstd,
                               torch::Tensor w, torch::Tensor b) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int cols = (int)x.size(-1);
    normalize_affine_kernel<<<(unsigned)((n + 255) / 256), 256>>>(
        x.data_ptr<float>(), r.data_ptr<float>(), mean.data_ptr<float>(), rstd.data_ptr<float>(),
        w.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), n, cols);
    return y;
}
"""

apply_ext = load_inline(
    name="honest_normalize_affine_apply",
    cpp_sources="torch::Tensor normalize_affine(torch::Tensor x, torch::Tensor r, torch::Tensor mean, "
                "torch::Tensor rstd, torch::Tensor w, torch::Tensor b);",
    cuda_sources=apply_source,
    functions=["normalize_affine"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x, residual):
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        r2 = residual.contiguous().view(-1, n_cols)
        rows = x2.shape[0]
        mean = torch.empty(rows, device=x.device, dtype=torch.float32)
        rstd = torch.empty_like(mean)
        _add_row_stats_kernel[(rows,)](x2, r2, mean, rstd, n_cols, self.norm.eps, BLOCK=1024)
        y = apply_ext.normalize_affine(x2, r2, mean, rstd, self.norm.weight.contiguous(),
                                       self.norm.bias.contiguous())
        return y.view(x.shape)
