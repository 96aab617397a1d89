# Honest CUDA candidate: residual add fused into LayerNorm, one warp per row, eight rows per
# block, __shfl_xor_sync all-reductions; the sum x + residual is recomputed in each pass
# instead of being stored.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

add_layernorm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__device__ __forceinline__ float warp_all_sum(float v) {
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

__global__ void add_layernorm_kernel(const float* __restrict__ x, const float* __restrict__ res,
                                     const float* __restrict__ w, const float* __restrict__ b,
                                     float* __restrict__ y, int64_t rows, int cols, float eps) {
    const int64_t row = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    const float* rr = res + row * cols;
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += xr[c] + rr[c];
    const float mean = warp_all_sum(sum) / cols;
    float sq = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float d = xr[c] + rr[c] - mean;
        sq += d * d;
    }
    const float rstd = rsqrtf(warp_all_sum(sq) / cols + eps);
    float* yr = y + row * cols;
    for (int c = lane; c < cols; c += 32) yr[c] = (xr[c] + rr[c] - mean) * rstd * w[c] + b[c];
}

torch::Tensor add_layernorm_cuda(torch::Tensor x, torch::Tensor residual, torch::Tensor weight,
                                 torch::Tensor bias, double eps) {
    auto xc = x.contiguous();
    auto rc = residual.contiguous();
    const int cols = (int)xc.size(-1);
    const int64_t rows = xc.numel() / cols;
    auto y = torch::empty_like(xc);
    const int rows_per_block = 8;
    const unsigned blocks = (unsigned)((rows + rows_per_block - 1) / rows_per_block);
    add_layernorm_kernel<<<blocks, 32 * rows_per_block, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), rc.data_ptr<float>(), weight.contiguous().data_ptr<float>(),
        bias.contiguous().data_ptr<float>(), y.data_ptr<float>(), rows, cols, (float)eps);
    return y;
}
"""

add_layernorm_cpp = """
torch::Tensor add_layernorm_cuda(torch::Tensor x, torch::Tensor residual, torch::Tensor weight,
                                 torch::Tensor bias, double eps);
"""

fused = load_inline(
    name="honest_add_layernorm_warp",
    cpp_sources=add_layernorm_cpp,
    cuda_sources=add_layernorm_source,
    functions=["add_layernorm_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x, residual):
        return fused.add_layernorm_cuda(x, residual, self.norm.weight, self.norm.bias, self.norm.eps)
