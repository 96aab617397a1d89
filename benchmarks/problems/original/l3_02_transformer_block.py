import torch
import torch.nn as nn
import torch.nn.functional as F

# Pre-LN decoder block: 4 x 1024 tokens, width 768, 12 heads, MLP 3072 (~90 GFLOP).
BATCH = 4
SEQ = 1024
WIDTH = 768
HEADS = 12


class Model(nn.Module):
    """x + attn(ln1(x)) then + mlp(ln2(x)), causal attention, GELU MLP (GPT-2 small)."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(w, dim=-1)
        q, k, v = (t.view(b, s, self.heads, w // self.heads).transpose(1, 2) for t in (q, k, v))
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, w))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


def get_inputs():
    return [torch.randn(BATCH, SEQ, WIDTH)]


def get_init_inputs():
    return [WIDTH, HEADS]
