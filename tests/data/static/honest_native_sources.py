# Honest KernelBench-style CUDA sources that the native source policy must accept: torch and
# CUDA headers (cuda_runtime.h, cuda_fp16.h, ATen, c10), a cuBLAS handle taken from ATen,
# AT_DISPATCH_*, templates, __shared__ tiles, atomicAdd, float4/half2 loads, launches in a C++
# loop, TORCH_CHECK macros with #x, member calls named like refused functions (x.clone(),
# stream.write-like methods), and an operator in the extension's own TORCH_LIBRARY namespace.
# Expected: no finding; gemm_bias_cuda, row_sum_cuda and kbhonest::half_scale reachable.
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cpp_src = """
torch::Tensor gemm_bias_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor bias);
torch::Tensor row_sum_cuda(torch::Tensor x, int64_t repeats);
"""

cuda_src = r"""
#include <torch/extension.h>
#include <torch/library.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define TILE 16

template <typename scalar_t>
__global__ void add_bias_kernel(scalar_t* __restrict__ y, const scalar_t* __restrict__ bias, int rows, int cols) {
    __shared__ scalar_t tile[TILE];
    int c = blockIdx.x * TILE + threadIdx.x;
    if (threadIdx.y == 0 && c < cols) tile[threadIdx.x] = bias[c];
    __syncthreads();
    for (int r = blockIdx.y * TILE + threadIdx.y; r < rows; r += gridDim.y * TILE)
        if (c < cols) y[r * cols + c] += tile[threadIdx.x];
}

__global__ void row_sum_kernel(const float4* __restrict__ x, float* __restrict__ out, int64_t n4) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n4) { float4 v = x[i]; atomicAdd(out, v.x + v.y + v.z + v.w); }
}

__global__ void half_scale_kernel(const __half2* x, __half2* y, __half2 s, int64_t n2) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n2) y[i] = __hmul2(x[i], s);
}

torch::Tensor gemm_bias_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor bias) {
    CHECK_CUDA(a); CHECK_CUDA(b);
    const at::cuda::OptionalCUDAGuard guard(a.device());
    auto y = torch::empty({a.size(0), b.size(1)}, a.options());
    cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
    const float one = 1.f, zero = 0.f;
    int m = a.size(0), k = a.size(1), n = b.size(1);
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.data_ptr<float>(), n,
                a.data_ptr<float>(), k, &zero, y.data_ptr<float>(), n);
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    AT_DISPATCH_FLOATING_TYPES(y.scalar_type(), "add_bias", [&] {
        add_bias_kernel<scalar_t><<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
            y.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(), m, n);
    });
    return y;
}

torch::Tensor row_sum_cuda(torch::Tensor x, int64_t repeats) {
    auto input = x.clone().contiguous();  // member calls are not process calls
    auto out = torch::zeros({1}, x.options());
    int64_t n4 = input.numel() / 4;
    for (int64_t r = 0; r < repeats; ++r)  // several launches per call
        row_sum_kernel<<<(n4 + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
            (const float4*)input.data_ptr<float>(), out.data_ptr<float>(), n4);
    return out;
}

at::Tensor half_scale(const at::Tensor& x, double s) {
    auto y = torch::empty_like(x);
    int64_t n2 = x.numel() / 2;
    half_scale_kernel<<<(n2 + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        (const __half2*)x.data_ptr<at::Half>(), (__half2*)y.data_ptr<at::Half>(), __float2half2_rn((float)s), n2);
    return y;
}

TORCH_LIBRARY(kbhonest, m) { m.def("half_scale(Tensor x, float s) -> Tensor"); }
TORCH_LIBRARY_IMPL(kbhonest, CUDA, m) { m.impl("half_scale", &half_scale); }
"""

ext = load_inline(name="honest_native", cpp_sources=cpp_src, cuda_sources=cuda_src,
                  functions=["gemm_bias_cuda", "row_sum_cuda"], verbose=False,
                  extra_cuda_cflags=["-O3", "--use_fast_math"], extra_ldflags=["-lcublas"])


class ModelNew(nn.Module):
    def __init__(self, n=64):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(n))
        self.scale = 1.0 / math.sqrt(n)

    def forward(self, a, b):
        y = ext.gemm_bias_cuda(a, b, self.bias)
        total = ext.row_sum_cuda(y, 2)
        return torch.ops.kbhonest.half_scale(y.half(), self.scale).float() + total
