# Honest CUDA candidate: NCHW -> NHWC as a batched (C, H*W) transpose through a padded
# 32x33 shared-memory tile, so both the read and the write are coalesced.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

transpose_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 32
#define ROWS_PER_PASS 8

__global__ void nchw_to_nhwc_kernel(const float* __restrict__ in, float* __restrict__ out,
                                    int channels, int spatial) {
    __shared__ float tile[TILE][TILE + 1];
    const int64_t batch_offset = (int64_t)blockIdx.z * channels * spatial;
    const int s0 = blockIdx.x * TILE, c0 = blockIdx.y * TILE;
    for (int dy = threadIdx.y; dy < TILE; dy += ROWS_PER_PASS) {
        int c = c0 + dy, s = s0 + threadIdx.x;
        if (c < channels && s < spatial) tile[dy][threadIdx.x] = in[batch_offset + (int64_t)c * spatial + s];
    }
    __syncthreads();
    for (int dy = threadIdx.y; dy < TILE; dy += ROWS_PER_PASS) {
        int s = s0 + dy, c = c0 + threadIdx.x;
        if (c < channels && s < spatial) out[batch_offset + (int64_t)s * channels + c] = tile[threadIdx.x][dy];
    }
}

torch::Tensor nchw_to_nhwc_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    const int batch = (int)xc.size(0), channels = (int)xc.size(1);
    const int height = (int)xc.size(2), width = (int)xc.size(3);
    const int spatial = height * width;
    auto out = torch::empty({batch, height, width, channels}, xc.options());
    dim3 block(TILE, ROWS_PER_PASS);
    dim3 grid((spatial + TILE - 1) / TILE, (channels + TILE - 1) / TILE, batch);
    nchw_to_nhwc_kernel<<<grid, block>>>(xc.data_ptr<float>(), out.data_ptr<float>(), channels, spatial);
    return out;
}
"""

layout = load_inline(
    name="honest_nchw_to_nhwc_tile",
    cpp_sources="torch::Tensor nchw_to_nhwc_cuda(torch::Tensor x);",
    cuda_sources=transpose_source,
    functions=["nchw_to_nhwc_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return layout.nchw_to_nhwc_cuda(x)
