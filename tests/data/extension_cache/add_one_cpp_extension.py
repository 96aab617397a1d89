# Honest C++ CPU extension built with load_inline: the build the shared extension cache stores
# and serves (tests/unit/test_extension_cache.cpp, docs/extensions.md). The same sources, name
# and flags as tests/hostile/extension_cache_poison.py, so both have one cache key.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ADD_ONE_CPP = r"""
torch::Tensor add_one(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) o[i] = in[i] + 1.0f;
    return out;
}
"""

add_one_ext = load_inline(name="kbench_add_one_cpu", cpp_sources=ADD_ONE_CPP, functions=["add_one"],
                          extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        # The same call again (a common LLM style): the module already loaded is returned.
        self.ext = load_inline(name="kbench_add_one_cpu", cpp_sources=ADD_ONE_CPP, functions=["add_one"],
                               extra_cflags=["-O1"])

    def forward(self, x):
        return self.ext.add_one(x)
