# Honest CUDA candidate: max and argmax of each row in one pass; (value, index) pairs reduced
# with warp shuffles, then across warps in shared memory. Returns a tuple from C++.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

max_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <vector>

__device__ __forceinline__ void take_better(float& v, int& i, float ov, int oi) {
    // Larger value wins; on a tie the smaller index.
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ values,
                               int64_t* __restrict__ indices, int cols) {
    __shared__ float sv[32];
    __shared__ int si[32];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float v = -INFINITY;
    int idx = 0x7fffffff;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) take_better(v, idx, row[c], c);
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_down_sync(0xffffffff, v, o);
        int oi = __shfl_down_sync(0xffffffff, idx, o);
        take_better(v, idx, ov, oi);
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sv[warp] = v; si[warp] = idx; }
    __syncthreads();
    if (warp == 0) {
        const int warps = blockDim.x >> 5;
        v = lane < warps ? sv[lane] : -INFINITY;
        idx = lane < warps ? si[lane] : 0x7fffffff;
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_down_sync(0xffffffff, v, o);
            int oi = __shfl_down_sync(0xffffffff, idx, o);
            take_better(v, idx, ov, oi);
        }
        if (lane == 0) {
            values[blockIdx.x] = v;
            indices[blockIdx.x] = idx;
        }
    }
}

std::vector<torch::Tensor> max_dim_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    const int cols = (int)xc.size(-1);
    const int64_t rows = xc.numel() / cols;
    auto sizes = xc.sizes().vec();
    sizes.pop_back();
    auto values = torch::empty(sizes, xc.options());
    auto indices = torch::empty(sizes, xc.options().dtype(torch::kInt64));
    row_max_kernel<<<(unsigned)rows, 256>>>(xc.data_ptr<float>(), values.data_ptr<float>(),
                                            indices.data_ptr<int64_t>(), cols);
    return {values, indices};
}
"""

max_dim = load_inline(
    name="honest_max_dim_shuffle",
    cpp_sources="std::vector<torch::Tensor> max_dim_cuda(torch::Tensor x);",
    cuda_sources=max_source,
    functions=["max_dim_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        values, indices = max_dim.max_dim_cuda(x)
        return values, indices
