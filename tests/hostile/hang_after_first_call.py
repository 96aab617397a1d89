# Right on the first call (compiles fine), then never returns: the run limit must fire, not the
# compile limit.
import torch.nn as nn

_calls = 0


class ModelNew(nn.Module):
    def forward(self, x):
        global _calls
        _calls += 1
        if _calls > 1:
            while True:
                pass
        return x + 1.0
