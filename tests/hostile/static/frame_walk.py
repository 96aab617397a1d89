# Exploit 8 (call stack): walk up to the harness's frame and return its expected output.
# Caught: `sys` is not importable; f_back and f_locals are forbidden attributes.
import sys
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        frame = sys._getframe(1)
        while frame is not None:
            if "expected" in frame.f_locals:
                return frame.f_locals["expected"]
            frame = frame.f_back
        return x + 1.0
