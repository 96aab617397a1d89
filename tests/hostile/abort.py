# Aborts the process from forward (SIGABRT).
import os

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        os.abort()
