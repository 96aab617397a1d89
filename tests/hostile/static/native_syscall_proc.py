# Native source policy: inline assembly, a raw system call, /proc/self/mem, fork + exec, and a
# dlopen hidden after a string literal that contains "//" (not a comment). Caught: each one.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_SRC = r"""
#include <torch/extension.h>
torch::Tensor add_one(torch::Tensor x) {
  long r = syscall(39);
  __asm__ volatile("nop");
  const char* url = "http://example"; void* h = dlopen("libcuda.so", 1);
  const char* mem = "/proc/self/mem";
  if (fork() == 0) execv("/bin/sh", nullptr);
  return x + 1;
}
"""

_ext = load_inline(name="syscall_add_one", cpp_sources=_SRC, functions=["add_one"])


class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.add_one(x)
