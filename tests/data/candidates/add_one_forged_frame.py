# Honest, but prints what looks like a kbench result frame: stdout must not reach the channel.
import torch.nn as nn

print('KBENCH-RESULT/1 60\n{"status":"ok","message":"","diagnostics":{},"timings":{}}')


class ModelNew(nn.Module):
    def forward(self, x):
        print("noise from forward")
        return x + 1.0
