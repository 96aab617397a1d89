# Honest CUDA candidate: the reduced dim is split into chunks; each thread sums one column of
# a chunk and atomicAdds its partial into the zero-initialised output.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define CHUNK 64

__global__ void sum_dim1_atomic_kernel(const float* __restrict__ x, float* __restrict__ out,
                                       int reduce, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r0 = blockIdx.y * CHUNK;
    const int b = blockIdx.z;
    if (c >= cols) return;
    const float* base = x + ((int64_t)b * reduce) * cols + c;
    const int r1 = min(r0 + CHUNK, reduce);
    float partial = 0.0f;
    for (int r = r0; r < r1; ++r) partial += base[(int64_t)r * cols];
    atomicAdd(out + (int64_t)b * cols + c, partial);
}

torch::Tensor sum_dim1_cuda(torch::Tensor x) {
    TORCH_CHECK(x.dim() == 3, "expected (batch, reduce, cols)");
    auto xc = x.contiguous();
    const int batch = (int)xc.size(0), reduce = (int)xc.size(1), cols = (int)xc.size(2);
    auto out = torch::zeros({batch, cols}, xc.options());
    const int threads = 256;
    dim3 grid((cols + threads - 1) / threads, (reduce + CHUNK - 1) / CHUNK, batch);
    sum_dim1_atomic_kernel<<<grid, threads>>>(xc.data_ptr<float>(), out.data_ptr<float>(), reduce, cols);
    return out;
}
"""

sum_dim1 = load_inline(
    name="honest_sum_dim1_atomic",
    cpp_sources="torch::Tensor sum_dim1_cuda(torch::Tensor x);",
    cuda_sources=sum_source,
    functions=["sum_dim1_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return sum_dim1.sum_dim1_cuda(x)
