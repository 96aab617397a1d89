# Honest CUDA candidate (level-3 style): the whole stack runs in one C++ call that loops over
# the blocks and launches two kernels per block (row rstd, then normalise + SiLU + residual),
# ping-ponging between two buffers. The parameters stay in an nn.ModuleList of small holder
# modules so the state_dict names match the reference's.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

stack_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <vector>

__global__ void row_rstd_kernel(const float* __restrict__ x, float* __restrict__ rstd, int cols, float eps) {
    __shared__ float warp_sums[32];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sq += row[c] * row[c];
    for (int o = 16; o > 0; o >>= 1) sq += __shfl_down_sync(0xffffffff, sq, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sq;
    __syncthreads();
    if (threadIdx.x < 32) {
        float v = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (threadIdx.x == 0) rstd[blockIdx.x] = rsqrtf(v / cols + eps);
    }
}

__global__ void apply_block_kernel(const float* __restrict__ x, const float* __restrict__ rstd,
                                   const float* __restrict__ w, const float* __restrict__ g,
                                   float* __restrict__ y, int64_t n, int cols) {
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = (int)(i % cols);
    const float v = x[i];
    const float h = v * rstd[i / cols] * w[c];
    const float silu = h / (1.0f + expf(-h));
    y[i] = v + g[c] * silu;
}

torch::Tensor rmsnorm_stack_forward(torch::Tensor x, std::vector<torch::Tensor> weights,
                                    std::vector<torch::Tensor> gammas, double eps) {
    TORCH_CHECK(weights.size() == gammas.size(), "one gamma per weight");
    auto cur = x.contiguous();
    const int cols = (int)cur.size(-1);
    const int64_t n = cur.numel();
    const int64_t rows = n / cols;
    auto rstd = torch::empty({rows}, cur.options());
    torch::Tensor bufs[2] = {torch::empty_like(cur), torch::empty_like(cur)};
    const int threads = 256;
    for (size_t layer = 0; layer < weights.size(); ++layer) {
        auto out = bufs[layer % 2];
        row_rstd_kernel<<<(unsigned)rows, threads>>>(cur.data_ptr<float>(), rstd.data_ptr<float>(), cols, (float)eps);
        apply_block_kernel<<<(unsigned)((n + threads - 1) / threads), threads>>>(
            cur.data_ptr<float>(), rstd.data_ptr<float>(), weights[layer].contiguous().data_ptr<float>(),
            gammas[layer].contiguous().data_ptr<float>(), out.data_ptr<float>(), n, cols);
        cur = out;
    }
    return cur;
}
"""

stack_cpp = """
#include <vector>
torch::Tensor rmsnorm_stack_forward(torch::Tensor x, std::vector<torch::Tensor> weights,
                                    std::vector<torch::Tensor> gammas, double eps);
"""

stack_ext = load_inline(
    name="honest_rmsnorm_stack_loop",
    cpp_sources=stack_cpp,
    cuda_sources=stack_source,
    functions=["rmsnorm_stack_forward"],
    verbose=True,
)


class BlockParams(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.gamma = nn.Parameter(torch.full((hidden,), 0.5))


class ModelNew(nn.Module):
    def __init__(self, hidden, depth, eps):
        super().__init__()
        self.blocks = nn.ModuleList(BlockParams(hidden) for _ in range(depth))
        self.eps = eps

    def forward(self, x):
        weights = [b.weight for b in self.blocks]
        gammas = [b.gamma for b in self.blocks]
        return stack_ext.rmsnorm_stack_forward(x, weights, gammas, self.eps)
