# Honest CUDA candidate for clamp_affine (LLM style): a module-level handle from load_inline,
# called in forward; the kernel is launched on the default stream, as most such code does.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

clamp_affine_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void clamp_affine_kernel(const float* __restrict__ x, float* __restrict__ y, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        float v = fminf(fmaxf(x[idx], 0.0f), 1.0f);
        y[idx] = v * 2.0f + 0.5f;
    }
}

torch::Tensor clamp_affine_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int size = x.numel();
    const int block_size = 256;
    const int num_blocks = (size + block_size - 1) / block_size;
    clamp_affine_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), y.data_ptr<float>(), size);
    return y;
}
"""

clamp_affine_cpp_source = "torch::Tensor clamp_affine_cuda(torch::Tensor x);"

clamp_affine = load_inline(
    name="kb_gpu_module_handle",
    cpp_sources=clamp_affine_cpp_source,
    cuda_sources=clamp_affine_source,
    functions=["clamp_affine_cuda"],
    verbose=True,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x):
        return clamp_affine.clamp_affine_cuda(x.contiguous())
