# A load_inline call whose arguments exist only at run time (never called here): kbench cannot
# prebuild it ("not static"), and nothing is built. Used by tests/e2e/test_run_extension_cache.cpp
# to see the cache turned off without Landlock, at no build cost.
import torch.nn as nn
from torch.utils.cpp_extension import load_inline


def build(sources):
    return load_inline(name="kbench_dynamic", cpp_sources=sources)


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 1.0
