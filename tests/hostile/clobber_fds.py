# Overwrites fds 0-2 and every other fd it can find with /dev/null (the result channel included),
# then returns a correct output. The worker can no longer deliver: a recorded crash.
import os

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        null = os.open("/dev/null", os.O_RDWR)
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd != null:
                try:
                    os.dup2(null, fd)
                except OSError:
                    pass
        return x + 1.0
