# Honest CUDA candidate for clamp_affine: one C++ function launches two kernels (a clamp into
# shared-memory tiles, then the affine epilogue), on the current stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#define TILE 256

__global__ void clamp_tile_kernel(const float* __restrict__ x, float* __restrict__ tmp, int n) {
    __shared__ float tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.f;
    __syncthreads();
    if (i < n) tmp[i] = fminf(fmaxf(tile[threadIdx.x], 0.f), 1.f);
}

__global__ void epilogue_kernel(const float* __restrict__ tmp, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(tmp[i], 2.f, 0.5f);
}

torch::Tensor clamp_affine_two_pass(torch::Tensor x) {
    auto tmp = torch::empty_like(x);
    auto y = torch::empty_like(x);
    int n = x.numel();
    auto stream = at::cuda::getCurrentCUDAStream();
    clamp_tile_kernel<<<(n + TILE - 1) / TILE, TILE, 0, stream>>>(x.data_ptr<float>(), tmp.data_ptr<float>(), n);
    epilogue_kernel<<<(n + 255) / 256, 256, 0, stream>>>(tmp.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="kb_gpu_two_kernels", cpp_sources="torch::Tensor clamp_affine_two_pass(torch::Tensor x);",
                  cuda_sources=source, functions=["clamp_affine_two_pass"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.clamp_affine_two_pass(x.contiguous())
