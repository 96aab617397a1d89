# Evasion attempt: an import that binds the name `getattr` (in a function never called) to make
# the analysis believe the module-level getattr is not the builtin. Caught: the computed name
# is still flagged.
import torch
import torch.nn as nn


def _never_called():
    import math as getattr  # noqa: F401
    return 0


class ModelNew(nn.Module):
    def forward(self, x):
        return getattr(torch, "co" + "mpile")(lambda t: t + 1.0)(x)
