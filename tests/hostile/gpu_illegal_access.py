# GPU-only hostile candidate: a Triton kernel that stores far outside its buffer (an illegal
# memory access, which poisons the CUDA context). Must be recorded as a failure of this job
# only; the next job gets a fresh process and a working GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def store_out_of_bounds(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(out_ptr + offsets + (1 << 36), values + 1.0)  # 256 GiB past the buffer, unmasked


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        store_out_of_bounds[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        torch.cuda.synchronize()
        return out
