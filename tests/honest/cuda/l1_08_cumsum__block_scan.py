# Honest CUDA candidate: one block per row; each thread scans a contiguous chunk, a
# Hillis-Steele scan in shared memory gives each chunk its offset, then the chunk is written.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scan_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void row_cumsum_kernel(const float* __restrict__ x, float* __restrict__ y, int len) {
    __shared__ float totals[THREADS];
    const float* row = x + (int64_t)blockIdx.x * len;
    float* out = y + (int64_t)blockIdx.x * len;
    const int t = threadIdx.x;
    const int chunk = (len + THREADS - 1) / THREADS;
    const int begin = min(t * chunk, len);
    const int end = min(begin + chunk, len);

    float total = 0.0f;
    for (int c = begin; c < end; ++c) total += row[c];
    totals[t] = total;
    __syncthreads();
    for (int offset = 1; offset < THREADS; offset <<= 1) {
        float v = t >= offset ? totals[t - offset] : 0.0f;
        __syncthreads();
        totals[t] += v;
        __syncthreads();
    }
    float running = t > 0 ? totals[t - 1] : 0.0f;
    for (int c = begin; c < end; ++c) {
        running += row[c];
        out[c] = running;
    }
}

torch::Tensor cumsum_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    const int len = (int)xc.size(-1);
    const int64_t rows = xc.numel() / len;
    auto y = torch::empty_like(xc);
    row_cumsum_kernel<<<(unsigned)rows, THREADS>>>(xc.data_ptr<float>(), y.data_ptr<float>(), len);
    return y;
}
"""

cumsum_ext = load_inline(
    name="honest_cumsum_block_scan",
    cpp_sources="torch::Tensor cumsum_cuda(torch::Tensor x);",
    cuda_sources=scan_source,
    functions=["cumsum_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cumsum = cumsum_ext

    def forward(self, x):
        return self.cumsum.cumsum_cuda(x)
