# Reachability patterns (level-3 style): a helper block class in an nn.ModuleList iterated in
# forward, the block calling the extension through `self.ext`; a plain list of functions stored
# in an attribute. Expected: fused_conv_relu_cuda and residual_add_cuda reachable.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
template <typename scalar_t>
__global__ void relu_inplace_kernel(scalar_t* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n && y[i] < scalar_t(0)) y[i] = scalar_t(0);
}
__global__ void residual_add_kernel(const float4* a, const float4* b, float4* y, int64_t n4) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n4) { float4 u = a[i], v = b[i]; y[i] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w); }
}
torch::Tensor fused_conv_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    auto y = at::conv2d(x, w, b, 1, 1);
    int64_t n = y.numel();
    AT_DISPATCH_FLOATING_TYPES(y.scalar_type(), "relu_inplace", [&] {
        relu_inplace_kernel<scalar_t><<<(n + 255) / 256, 256>>>(y.data_ptr<scalar_t>(), n);
    });
    return y;
}
torch::Tensor residual_add_cuda(torch::Tensor a, torch::Tensor b) {
    auto y = torch::empty_like(a);
    int64_t n4 = a.numel() / 4;
    residual_add_kernel<<<(n4 + 255) / 256, 256>>>((const float4*)a.data_ptr<float>(),
        (const float4*)b.data_ptr<float>(), (float4*)y.data_ptr<float>(), n4);
    return y;
}
"""
cpp_src = """
torch::Tensor fused_conv_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b);
torch::Tensor residual_add_cuda(torch::Tensor a, torch::Tensor b);
"""

block_ext = load_inline(name="reach_blocks", cpp_sources=cpp_src, cuda_sources=cuda_src,
                        functions=["fused_conv_relu_cuda", "residual_add_cuda"], verbose=False)


class ConvReluBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.ext = block_ext

    def forward(self, x):
        y = self.ext.fused_conv_relu_cuda(x, self.conv.weight, self.conv.bias)
        return self.ext.residual_add_cuda(y, x)


class ModelNew(nn.Module):
    def __init__(self, c=8, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList([ConvReluBlock(c) for _ in range(depth)])
        self.post = [torch.relu]

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        for fn in self.post:
            x = fn(x)
        return x
