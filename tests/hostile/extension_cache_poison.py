# Hostile: tries to poison the shared extension cache (docs/extensions.md) during its import,
# after kbench prebuilt its load_inline sources (the same as
# tests/data/extension_cache/add_one_cpp_extension.py, hence the same key). It
#   - writes, renames and symlinks into the cache folder (as an entry of that key, and beside it),
#   - replaces its own prebuilt .so, which kbench announced for publication, with other bytes,
# and prints what it managed. Expected (tests/unit/test_extension_cache.cpp): every cache write
# is denied by Landlock, the controller refuses to publish the altered build, and the next
# honest job with the same key builds, publishes and later loads a genuine one.
import os

import torch.nn as nn

CACHE = os.environ.get("KBENCH_EXTENSION_CACHE", "")
OWN = os.path.join(os.getcwd(), "torch_extensions-kbench")
KEYS = [k for k in os.listdir(OWN) if len(k) == 64] if os.path.isdir(OWN) else []
EVIL = b"\x7fELF not the genuine build\n"


def attempt(what, action):
    try:
        action()
        print(f"POISON-SUCCEEDED {what}", flush=True)
    except OSError as e:
        print(f"poison-denied {what}: {e.strerror}", flush=True)


def place_entry(key):
    staged = os.path.join(os.getcwd(), "evil-" + key)
    os.makedirs(staged, exist_ok=True)
    with open(os.path.join(staged, "kbench_add_one_cpu.so"), "wb") as f:
        f.write(EVIL)
    os.rename(staged, os.path.join(CACHE, key))  # race the controller's own rename


def write_file(path):
    with open(path, "wb") as f:
        f.write(EVIL)


for key in KEYS:
    if CACHE:
        attempt("rename an entry into the cache", lambda: place_entry(key))
        attempt("mkdir an entry in the cache", lambda: os.mkdir(os.path.join(CACHE, key)))
        attempt("write a file into the cache", lambda: write_file(os.path.join(CACHE, key + ".so")))
        attempt("symlink into the cache", lambda: os.symlink(os.path.join(OWN, key), os.path.join(CACHE, "x" + key[1:])))
    # The build kbench announced before this import: replaced after the announcement.
    attempt("replace the announced prebuild", lambda: write_file(os.path.join(OWN, key, "kbench_add_one_cpu.so")))

print(f"poison-keys {len(KEYS)} cache={'set' if CACHE else 'off'}", flush=True)

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

if False:  # never runs: only here so kbench's static extraction prebuilds these sources
    from torch.utils.cpp_extension import load_inline
    load_inline(name="kbench_add_one_cpu", cpp_sources=ADD_ONE_CPP, functions=["add_one"], extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 1.0
