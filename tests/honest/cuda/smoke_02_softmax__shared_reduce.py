# Honest CUDA candidate: one block per row, three passes over the row (max, sum of exp,
# normalise) with shared-memory tree reductions; the extension is kept as self.op.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 512

__global__ void row_softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float red[THREADS];
    const float* row_in = x + (int64_t)blockIdx.x * cols;
    float* row_out = y + (int64_t)blockIdx.x * cols;
    int tid = threadIdx.x;

    float m = -INFINITY;
    for (int c = tid; c < cols; c += THREADS) m = fmaxf(m, row_in[c]);
    red[tid] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int c = tid; c < cols; c += THREADS) sum += __expf(row_in[c] - row_max);
    red[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];

    for (int c = tid; c < cols; c += THREADS) row_out[c] = __expf(row_in[c] - row_max) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    int cols = (int)xc.size(-1);
    int64_t rows = xc.numel() / cols;
    auto y = torch::empty_like(xc);
    row_softmax_kernel<<<(unsigned)rows, THREADS>>>(xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(
    name="honest_row_softmax_shared",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = softmax_ext

    def forward(self, x):
        return self.op.softmax_cuda(x)
