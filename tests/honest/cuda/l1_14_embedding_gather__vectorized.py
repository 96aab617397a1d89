# Honest CUDA candidate: one block per id, float4 row copies (scalar when the width is not a
# multiple of 4); the embedding table keeps the reference's parameter name.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gather_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void gather_rows_vec4_kernel(const float4* __restrict__ table, const int64_t* __restrict__ ids,
                                        float4* __restrict__ out, int dim_vec) {
    const int64_t id = ids[blockIdx.x];
    const float4* src = table + id * dim_vec;
    float4* dst = out + (int64_t)blockIdx.x * dim_vec;
    for (int i = threadIdx.x; i < dim_vec; i += blockDim.x) dst[i] = src[i];
}

__global__ void gather_rows_kernel(const float* __restrict__ table, const int64_t* __restrict__ ids,
                                   float* __restrict__ out, int dim) {
    const int64_t id = ids[blockIdx.x];
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        out[(int64_t)blockIdx.x * dim + i] = table[id * dim + i];
}

torch::Tensor embedding_gather_cuda(torch::Tensor weight, torch::Tensor idx) {
    auto wc = weight.contiguous();
    auto ids = idx.contiguous().to(torch::kInt64);
    const int dim = (int)wc.size(1);
    const int64_t n = ids.numel();
    auto sizes = ids.sizes().vec();
    sizes.push_back(dim);
    auto out = torch::empty(sizes, wc.options());
    if (n == 0) return out;
    if (dim % 4 == 0) {
        gather_rows_vec4_kernel<<<(unsigned)n, 256>>>(reinterpret_cast<const float4*>(wc.data_ptr<float>()),
                                                      ids.data_ptr<int64_t>(),
                                                      reinterpret_cast<float4*>(out.data_ptr<float>()), dim / 4);
    } else {
        gather_rows_kernel<<<(unsigned)n, 256>>>(wc.data_ptr<float>(), ids.data_ptr<int64_t>(),
                                                 out.data_ptr<float>(), dim);
    }
    return out;
}
"""

gather = load_inline(
    name="honest_embedding_gather_vec4",
    cpp_sources="torch::Tensor embedding_gather_cuda(torch::Tensor weight, torch::Tensor idx);",
    cuda_sources=gather_source,
    functions=["embedding_gather_cuda"],
    verbose=True,
)


class ModelNew(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim))

    def forward(self, idx):
        return gather.embedding_gather_cuda(self.weight, idx)
