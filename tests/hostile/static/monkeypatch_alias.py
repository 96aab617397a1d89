# Exploit 4 through aliases: patch CUDA event timing via a local alias of the class, and via
# setattr with a literal name. Caught: both write to an imported class.
import torch
import torch.nn as nn

Event = torch.cuda.Event


def _fake_elapsed(self, end):
    return 0.001


Event.elapsed_time = _fake_elapsed
setattr(torch.cuda, "synchronize", lambda: None)


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 1.0
