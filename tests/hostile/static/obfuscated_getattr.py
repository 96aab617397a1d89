# String obfuscation: reach torch.compile (the Inductor baseline itself) through a name built
# at run time. Caught: getattr() with a computed name.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fast = None

    def forward(self, x):
        if self.fast is None:
            self.fast = getattr(torch, "co" + "mpile")(lambda t: t + 1.0)
        return self.fast(x)
