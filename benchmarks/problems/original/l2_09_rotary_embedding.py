import torch
import torch.nn as nn

# Rotary position embedding on 8 x 32 heads x 2048 x 128 fp32 (256 MiB per tensor).
BATCH = 8
HEADS = 32
SEQ = 2048
HEAD_DIM = 128


class Model(nn.Module):
    """y = x * cos + rotate_half(x) * sin (GPT-NeoX style), tables per position."""

    def __init__(self):
        super().__init__()

    def forward(self, x, cos, sin):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin


def get_inputs():
    inv_freq = 1.0 / (10000 ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
    angles = torch.arange(SEQ).float()[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), angles.cos(), angles.sin()]


def get_init_inputs():
    return []
