# Triton: flash-attention forward. One program per (batch x head, block of queries); it walks the
# keys in BLOCK_N blocks with an online softmax (running max m, sum l, rescaled accumulator), so
# the (SEQ, SEQ) score matrix never exists. fp32 inputs use ieee dots (1e-4); fp16 inputs (the
# fp16 entry) the tensor cores, with fp32 accumulation.
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _dot(a, b, IEEE: tl.constexpr):
    if IEEE:
        return tl.dot(a, b, input_precision="ieee")
    else:
        return tl.dot(a, b)


@triton.jit
def flash_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, scale,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                           IEEE: tl.constexpr):
    bh = tl.program_id(0).to(tl.int64)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    base = bh * seq_len * HEAD_DIM
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + d[None, :], mask=rows[:, None] < seq_len, other=0.0)
    m = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        kv_mask = cols[:, None] < seq_len
        k = tl.load(k_ptr + base + cols[:, None] * HEAD_DIM + d[None, :], mask=kv_mask, other=0.0)
        s = _dot(q, tl.trans(k), IEEE) * scale
        s = tl.where(cols[None, :] < seq_len, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * HEAD_DIM + d[None, :], mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + _dot(p.to(v.dtype), v, IEEE)
        m = m_new
    out = acc / l[:, None]
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + d[None, :], out.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < seq_len)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        batch, heads, seq_len, head_dim = q.shape
        o = torch.empty_like(q)
        BLOCK_M, BLOCK_N = 64, 32
        grid = (batch * heads, triton.cdiv(seq_len, BLOCK_M))
        flash_attention_kernel[grid](q, k, v, o, seq_len, 1.0 / math.sqrt(head_dim),
                                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=head_dim,
                                     IEEE=q.dtype == torch.float32, num_warps=4, num_stages=2)
        return o
