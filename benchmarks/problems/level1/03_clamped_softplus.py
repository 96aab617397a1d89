import torch
import torch.nn as nn

# 64 x 1024 x 1024 fp32 = 256 MiB in, 256 MiB out: memory-bound, two transcendentals.
BATCH = 64
SEQ = 1024
DIM = 1024


class Model(nn.Module):
    """y = log(1 + exp(clamp(x * scale, lo, hi))): scale and clamp, then an exp/log mix
    (a hand-written softplus whose input is clamped so that exp cannot overflow)."""

    def __init__(self, scale, lo, hi):
        super().__init__()
        self.scale = scale
        self.lo = lo
        self.hi = hi

    def forward(self, x):
        z = torch.clamp(x * self.scale, self.lo, self.hi)
        return torch.log1p(torch.exp(z))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    # scale 3 on randn input: the ~5% of elements with |x| > 2 hit the clamp.
    return [3.0, -6.0, 6.0]
