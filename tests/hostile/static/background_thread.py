# Exploit 2 (background thread): return at once and finish the work in a thread after the
# timer stopped. Caught: `threading` and `concurrent` are not importable.
import threading
from concurrent.futures import ThreadPoolExecutor
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        threading.Thread(target=lambda: out.copy_(x + 1.0)).start()
        return out
