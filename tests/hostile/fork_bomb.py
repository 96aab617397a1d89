# Correct, but leaves 300 sleeping children behind on its first call, some in their own session
# (out of the worker's process group). None may outlive the job.
import os
import time

import torch.nn as nn

_forked = False


class ModelNew(nn.Module):
    def forward(self, x):
        global _forked
        if not _forked:
            _forked = True
            started = 0
            for i in range(300):
                try:
                    pid = os.fork()
                except OSError:
                    break  # RLIMIT_NPROC: the bomb is bounded by the sandbox too
                if pid == 0:
                    if i % 3 == 0:
                        os.setsid()
                    time.sleep(120)
                    os._exit(0)
                started += 1
            print(f"fork-bomb started {started} children", flush=True)
        return x + 1.0
