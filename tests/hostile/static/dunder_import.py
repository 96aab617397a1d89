# String obfuscation: import `os` by a computed name. Caught: __import__ is forbidden.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        mod = __import__("o" + "s")
        mod.environ["KB"] = "1"
        return x + 1.0
