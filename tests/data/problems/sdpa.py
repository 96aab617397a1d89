# Scaled dot-product attention, the target of tests/hostile/exploits/sdpa_flash_disabled.py
# (which switches the reference's backend off). Sizes where the CPU's flash kernel beats the
# math path by ~2x.
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, S, D = 2, 4, 256, 64


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    return [torch.randn(B, H, S, D), torch.randn(B, H, S, D), torch.randn(B, H, S, D)]


def get_init_inputs():
    return []
