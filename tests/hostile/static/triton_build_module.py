# Native code through Triton: its compiler of host modules builds and imports any C source.
# Refused by name here; reached without the name (an evaluated string), the audit hook sees the
# call come from the candidate's frame (tests/hostile/exploits/triton_build_native.py).
# Also torch.compile under its public alias torch.compiler.compile (the Inductor baseline).
import torch
import triton
from triton.runtime.build import compile_module_from_src

SOURCE = "int f(void) { return 1; }"


def build():
    return triton.backends.nvidia.driver.compile_module_from_src(SOURCE, "m")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x


def compiled(model):
    return torch.compiler.compile(model)  # torch.compile by another name: the Inductor baseline
