# Forks while being imported. The child raises, so it unwinds back into the harness as a failed
# import and would deliver `compile_error`, a frame that is not the worker's. The parent waits
# for the child and goes on with a wrong ModelNew: its own verdict, `mismatch`, must be the one
# recorded.
import os
import torch.nn as nn

if os.fork() == 0:
    raise ImportError("child of the worker unwinding into the harness")
os.wait()


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 2.0
