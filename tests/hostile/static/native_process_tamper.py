# Native source policy: a constructor that runs when the extension loads, maps its own memory
# writable and starts a thread that keeps working after forward returns; raw writes to fds.
# Caught: each construct with its own line; the comment mentioning fork is not a finding.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_SRC = r"""
#include <torch/extension.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
// no fork() here: comments are not scanned
__attribute__((constructor)) static void on_load() {
  mprotect((void*)0x1000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
  ::write(3, "KBENCH-RESULT/1", 15);
  dup2(1, 3);
}
torch::Tensor add_one(torch::Tensor x) {
  std::thread([] { /* late work */ }).detach();
  return x + 1;
}
"""

_ext = load_inline(name="tamper_add_one", cpp_sources=_SRC, functions=["add_one"])


class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.add_one(x)
