# Honest CUDA candidate: templated kernel under AT_DISPATCH_FLOATING_TYPES, accumulation in
# at::acc_type, warp-shuffle block reductions, two-pass (centred) variance. The nn.LayerNorm is
# kept as the parameter holder so the state_dict names match the reference.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

layernorm_source = """
#include <torch/extension.h>
#include <ATen/AccumulateType.h>
#include <cuda_runtime.h>

template <typename T>
__device__ T block_sum(T v, T* shared) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int warps = blockDim.x >> 5;
    v = (threadIdx.x < warps) ? shared[lane] : T(0);
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) shared[0] = v;
    __syncthreads();
    T total = shared[0];
    __syncthreads();
    return total;
}

template <typename scalar_t>
__global__ void layernorm_kernel(const scalar_t* __restrict__ x, const scalar_t* __restrict__ w,
                                 const scalar_t* __restrict__ b, scalar_t* __restrict__ y,
                                 int64_t cols, double eps) {
    using acc_t = at::acc_type<scalar_t, true>;
    __shared__ acc_t shared[32];
    const scalar_t* row = x + blockIdx.x * cols;
    scalar_t* out = y + blockIdx.x * cols;

    acc_t sum = 0;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) sum += static_cast<acc_t>(row[c]);
    const acc_t mean = block_sum<acc_t>(sum, shared) / static_cast<acc_t>(cols);

    acc_t sq = 0;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        acc_t d = static_cast<acc_t>(row[c]) - mean;
        sq += d * d;
    }
    const acc_t var = block_sum<acc_t>(sq, shared) / static_cast<acc_t>(cols);
    const acc_t rstd = acc_t(1) / sqrt(var + static_cast<acc_t>(eps));

    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        acc_t v = (static_cast<acc_t>(row[c]) - mean) * rstd;
        out[c] = static_cast<scalar_t>(v * static_cast<acc_t>(w[c]) + static_cast<acc_t>(b[c]));
    }
}

torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    auto xc = x.contiguous();
    const int64_t cols = xc.size(-1);
    const int64_t rows = xc.numel() / cols;
    auto y = torch::empty_like(xc);
    const int threads = 512;
    AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "layernorm_forward", ([&] {
        layernorm_kernel<scalar_t><<<(unsigned)rows, threads>>>(
            xc.data_ptr<scalar_t>(), weight.contiguous().data_ptr<scalar_t>(),
            bias.contiguous().data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), cols, eps);
    }));
    return y;
}
"""

layernorm_cpp_source = (
    "torch::Tensor layernorm_forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps);"
)

layernorm = load_inline(
    name="honest_layernorm_dispatch",
    cpp_sources=layernorm_cpp_source,
    cuda_sources=layernorm_source,
    functions=["layernorm_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.ln = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, x):
        return layernorm.layernorm_forward(x, self.ln.weight, self.ln.bias, self.ln.eps)
