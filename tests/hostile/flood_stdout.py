# Correct, but writes 100 MB to stdout on its first call: the capture must stay capped and the
# worker must not block on a full pipe.
import os

import torch.nn as nn

_flooded = False


class ModelNew(nn.Module):
    def forward(self, x):
        global _flooded
        if not _flooded:
            _flooded = True
            os.write(1, b"flood-start\n")
            chunk = b"y" * (1 << 20)
            for _ in range(100):
                os.write(1, chunk)
            os.write(1, b"\nflood-end\n")
        return x + 1.0
