import torch
import torch.nn as nn
import torch.nn.functional as F

# Top-1 routed MoE: 8192 tokens, width 1024, 8 experts of 1024 -> 2048 -> 1024 (~69 GFLOP).
TOKENS = 8192
HIDDEN = 1024
INTER = 2048
EXPERTS = 8


class Model(nn.Module):
    """Each token goes to its argmax expert (a two-layer SiLU MLP), scaled by the gate prob."""

    def __init__(self, hidden, inter, experts):
        super().__init__()
        self.router = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(hidden, inter), nn.SiLU(), nn.Linear(inter, hidden)) for _ in range(experts))

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        gate, choice = probs.max(dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            rows = (choice == e).nonzero(as_tuple=True)[0]
            if rows.numel() > 0:
                out.index_copy_(0, rows, expert(x.index_select(0, rows)) * gate[rows, None])
        return out


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, INTER, EXPERTS]
