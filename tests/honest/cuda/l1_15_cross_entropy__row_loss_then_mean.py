# Honest CUDA candidate: kernel 1 computes each row's loss (logsumexp - logit[target]) with a
# block reduction; kernel 2 averages the losses in one block (deterministic, no atomics).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ce_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 512

template <bool IS_MAX>
__device__ float block_reduce(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            float o = buf[threadIdx.x + s];
            buf[threadIdx.x] = IS_MAX ? fmaxf(buf[threadIdx.x], o) : buf[threadIdx.x] + o;
        }
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

__global__ void row_loss_kernel(const float* __restrict__ logits, const int64_t* __restrict__ target,
                                float* __restrict__ loss, int classes) {
    __shared__ float buf[THREADS];
    const float* row = logits + (int64_t)blockIdx.x * classes;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < classes; c += THREADS) m = fmaxf(m, row[c]);
    m = block_reduce<true>(m, buf);
    float s = 0.0f;
    for (int c = threadIdx.x; c < classes; c += THREADS) s += expf(row[c] - m);
    s = block_reduce<false>(s, buf);
    if (threadIdx.x == 0) loss[blockIdx.x] = logf(s) + m - row[target[blockIdx.x]];
}

__global__ void mean_kernel(const float* __restrict__ loss, float* __restrict__ out, int64_t n) {
    __shared__ float buf[THREADS];
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < n; i += THREADS) s += loss[i];
    s = block_reduce<false>(s, buf);
    if (threadIdx.x == 0) out[0] = s / (float)n;
}

torch::Tensor cross_entropy_cuda(torch::Tensor logits, torch::Tensor target) {
    auto lc = logits.contiguous();
    auto tc = target.contiguous();
    const int64_t batch = lc.size(0);
    const int classes = (int)lc.size(1);
    auto per_row = torch::empty({batch}, lc.options());
    auto out = torch::empty({}, lc.options());
    row_loss_kernel<<<(unsigned)batch, THREADS>>>(lc.data_ptr<float>(), tc.data_ptr<int64_t>(),
                                                  per_row.data_ptr<float>(), classes);
    mean_kernel<<<1, THREADS>>>(per_row.data_ptr<float>(), out.data_ptr<float>(), batch);
    return out;
}
"""

cross_entropy = load_inline(
    name="honest_cross_entropy_two_kernels",
    cpp_sources="torch::Tensor cross_entropy_cuda(torch::Tensor logits, torch::Tensor target);",
    cuda_sources=ce_source,
    functions=["cross_entropy_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return cross_entropy.cross_entropy_cuda(logits, target)
