# Honest CUDA candidate for clamp_affine: the C++ wrapper launches one kernel per row chunk in
# a loop (several launches per call, as LLM code often does for batched work).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void rows_clamp_affine_kernel(const float* x, float* y, int64_t row0, int64_t rows, int64_t cols) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t n = rows * cols;
    if (i < n) {
        int64_t k = row0 * cols + i;
        y[k] = fminf(fmaxf(x[k], 0.f), 1.f) * 2.f + 0.5f;
    }
}

torch::Tensor chunked_clamp_affine(torch::Tensor x, int64_t chunk_rows) {
    auto y = torch::empty_like(x);
    int64_t rows = x.size(0), cols = x.numel() / x.size(0);
    auto stream = at::cuda::getCurrentCUDAStream();
    for (int64_t r = 0; r < rows; r += chunk_rows) {
        int64_t count = std::min(chunk_rows, rows - r);
        int64_t n = count * cols;
        rows_clamp_affine_kernel<<<(n + 255) / 256, 256, 0, stream>>>(
            x.data_ptr<float>(), y.data_ptr<float>(), r, count, cols);
    }
    return y;
}
"""

chunked = load_inline(name="kb_gpu_launch_loop",
                      cpp_sources="torch::Tensor chunked_clamp_affine(torch::Tensor x, int64_t chunk_rows);",
                      cuda_sources=source, functions=["chunked_clamp_affine"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.chunk_rows = 16

    def forward(self, x):
        return chunked.chunked_clamp_affine(x.contiguous(), self.chunk_rows)
