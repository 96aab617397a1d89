# TorchScript (red-teaming 2026-12-05): torch.jit.fork runs a task on torch's inter-op pool; a
# @torch.jit.ignore function called there runs Python on a thread threading.enumerate() never
# lists, holding the GIL while the eager baseline runs (exploits/interop_gil_spinner.py, 8x paid
# on the CPU). Its other doors: text compiled as TorchScript, programs loaded from files.
import torch
import torch.nn as nn
from torch.jit import fork


@torch.jit.ignore
def burn(n: int) -> int:
    return n


unit = torch.jit.CompilationUnit("def f(x: int) -> int:\n    return x\n")
loaded = torch.jit.load


class ModelNew(nn.Module):
    def forward(self, x):
        future = fork(burn, 3)
        torch.distributed.is_available()
        return x + 1
