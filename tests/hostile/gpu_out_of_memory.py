# GPU-only hostile candidate: asks for far more device memory than any GPU has (8 TiB).
# Must be a runtime_error for this job only; the next job runs normally.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        scratch = torch.empty(1 << 41, dtype=torch.float32, device=x.device)
        return x + 1.0 + scratch[:1]
