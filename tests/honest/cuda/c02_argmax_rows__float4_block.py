# Honest CUDA candidate: argmax of each row, float4 loads when the row length allows, a
# (value, index) reduction through shared memory; int64 output like torch.argmax.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

argmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

__device__ __forceinline__ void keep_max(float& v, int& i, float ov, int oi) {
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

__global__ void argmax_rows_kernel(const float* __restrict__ x, int64_t* __restrict__ out, int cols, bool vec4) {
    __shared__ float sv[THREADS];
    __shared__ int si[THREADS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float best = -INFINITY;
    int best_i = 0x7fffffff;
    if (vec4) {
        const float4* row4 = reinterpret_cast<const float4*>(row);
        for (int j = threadIdx.x; j < cols / 4; j += THREADS) {
            float4 v = row4[j];
            keep_max(best, best_i, v.x, 4 * j);
            keep_max(best, best_i, v.y, 4 * j + 1);
            keep_max(best, best_i, v.z, 4 * j + 2);
            keep_max(best, best_i, v.w, 4 * j + 3);
        }
    } else {
        for (int j = threadIdx.x; j < cols; j += THREADS) keep_max(best, best_i, row[j], j);
    }
    sv[threadIdx.x] = best;
    si[threadIdx.x] = best_i;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            float v = sv[threadIdx.x];
            int i = si[threadIdx.x];
            keep_max(v, i, sv[threadIdx.x + s], si[threadIdx.x + s]);
            sv[threadIdx.x] = v;
            si[threadIdx.x] = i;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = si[0];
}

torch::Tensor argmax_rows_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    const int cols = (int)xc.size(-1);
    const int64_t rows = xc.numel() / cols;
    auto sizes = xc.sizes().vec();
    sizes.pop_back();
    auto out = torch::empty(sizes, xc.options().dtype(torch::kInt64));
    const bool vec4 = cols % 4 == 0;
    argmax_rows_kernel<<<(unsigned)rows, THREADS>>>(xc.data_ptr<float>(), out.data_ptr<int64_t>(), cols, vec4);
    return out;
}
"""

argmax_ext = load_inline(
    name="honest_argmax_rows_vec4",
    cpp_sources="torch::Tensor argmax_rows_cuda(torch::Tensor x);",
    cuda_sources=argmax_source,
    functions=["argmax_rows_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.argmax = argmax_ext

    def forward(self, x):
        return self.argmax.argmax_rows_cuda(x)
