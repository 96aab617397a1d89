# Honest CUDA candidate: two kernels launched from one C++ function -- a shared-memory tiled
# Q K^T with the scale fused, then a warp-per-row softmax over the scores.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

attention_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 16

// scores[bh, i, j] = scale * sum_d q[bh, i, d] * k[bh, j, d]
__global__ void qk_scores_kernel(const float* __restrict__ q, const float* __restrict__ k,
                                 float* __restrict__ s, int seq, int dim, float scale) {
    __shared__ float qs[TILE][TILE];
    __shared__ float ks[TILE][TILE + 1];
    const int bh = blockIdx.z;
    const int i = blockIdx.y * TILE + threadIdx.y;
    const int j = blockIdx.x * TILE + threadIdx.x;
    const float* qb = q + (int64_t)bh * seq * dim;
    const float* kb = k + (int64_t)bh * seq * dim;
    float acc = 0.0f;
    for (int d0 = 0; d0 < dim; d0 += TILE) {
        int d = d0 + threadIdx.x;
        qs[threadIdx.y][threadIdx.x] = (i < seq && d < dim) ? qb[(int64_t)i * dim + d] : 0.0f;
        int kj = blockIdx.x * TILE + threadIdx.y;
        ks[threadIdx.y][threadIdx.x] = (kj < seq && d < dim) ? kb[(int64_t)kj * dim + d] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int t = 0; t < TILE; ++t) acc += qs[threadIdx.y][t] * ks[threadIdx.x][t];
        __syncthreads();
    }
    if (i < seq && j < seq) s[((int64_t)bh * seq + i) * seq + j] = acc * scale;
}

// One warp per row, in place.
__global__ void softmax_rows_kernel(float* __restrict__ s, int64_t rows, int cols) {
    const int64_t row = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float* r = s + row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, r[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += expf(r[c] - m);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
    const float inv = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) r[c] = expf(r[c] - m) * inv;
}

torch::Tensor attention_scores_cuda(torch::Tensor q, torch::Tensor k, double scale) {
    auto qc = q.contiguous();
    auto kc = k.contiguous();
    const int64_t batch = qc.size(0), heads = qc.size(1);
    const int seq = (int)qc.size(2), dim = (int)qc.size(3);
    auto s = torch::empty({batch, heads, seq, seq}, qc.options());
    dim3 block(TILE, TILE);
    dim3 grid((seq + TILE - 1) / TILE, (seq + TILE - 1) / TILE, (unsigned)(batch * heads));
    qk_scores_kernel<<<grid, block>>>(qc.data_ptr<float>(), kc.data_ptr<float>(),
                                      s.data_ptr<float>(), seq, dim, (float)scale);
    const int64_t rows = batch * heads * seq;
    const int warps_per_block = 8;
    softmax_rows_kernel<<<(unsigned)((rows + warps_per_block - 1) / warps_per_block), 32 * warps_per_block>>>(
        s.data_ptr<float>(), rows, seq);
    return s;
}
"""

attention_cpp_source = "torch::Tensor attention_scores_cuda(torch::Tensor q, torch::Tensor k, double scale);"

attention = load_inline(
    name="honest_attention_scores_two_kernels",
    cpp_sources=attention_cpp_source,
    cuda_sources=attention_source,
    functions=["attention_scores_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k):
        scale = q.shape[-1] ** -0.5
        return attention.attention_scores_cuda(q, k, scale)
