"""Keys and static extraction of lib/worker/extension_builds.py (docs/extensions.md), without
builds: everything that decides the binary changes the key, and nothing else does; calls that
could read or run files outside the key are never shared. And the niced build thread: what it
forks runs BUILD_NICE lower, its caller does not. A few seconds (imports torch)."""
import inspect
import sys

source_file = sys.argv[1]
scope = {"__name__": "kbench_extension_builds"}
exec(compile(open(source_file).read(), source_file, "exec"), scope)
import torch.utils.cpp_extension as ce

PARAMS = list(inspect.signature(ce.load_inline).parameters)
DEFAULTS = {n: p.default for n, p in inspect.signature(ce.load_inline).parameters.items()
            if p.default is not inspect.Parameter.empty}
TOOLS = {"rule": 1, "cxx": ["/usr/bin/g++", "g++ 12"], "nvcc": None, "torch": ["2.x", "None", ""],
         "python": ["cpython-311", "x86_64", "linux"], "arch": "9.0"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def key(tools=TOOLS, **a):
    args = dict(DEFAULTS, name="m", cpp_sources="int f();", functions=["f"])
    args.update(a)
    return scope["spec_of"](args, tools)[0]


def not_shareable(**a):
    try:
        key(**a)
        return False
    except scope["NotShareable"]:
        return True


base = key()
check(key() == base, "the key is deterministic")
check(key(cpp_sources=["int f();"]) == base, "a string and a one-item list are the same sources")
check(key(extra_cflags=["-O3"]) != base, "flags change the key")
check(key(extra_cflags=["-O3"]) != key(extra_cflags=["-O2"]), "different flags, different keys")
check(key(cpp_sources="int g();") != base, "sources change the key")
check(key(functions=["f", "g"]) != base, "the functions list changes the key")
check(key(name="n") != base, "the module name changes the key")
check(key(cuda_sources="__global__ void k(){}") != base, "cuda sources change the key")
check(key(with_cuda=True) != base, "with_cuda changes the key")
check(key(extra_ldflags=["-lcublas"]) != base, "ldflags change the key")
check(key(tools=dict(TOOLS, cxx=["/usr/bin/g++", "g++ 13"])) != base, "the compiler version changes the key")
check(key(tools=dict(TOOLS, torch=["2.y", "None", ""])) != base, "the torch version changes the key")
check(key(tools=dict(TOOLS, rule=2)) != base, "the build-rule version changes the key")
cuda = dict(cuda_sources="__global__ void k(){}")
check(key(tools=dict(TOOLS, arch="8.0"), **cuda) != key(**cuda), "the CUDA arch changes a CUDA key")
check(key(tools=dict(TOOLS, arch="8.0")) == base, "a CPU-only key ignores the CUDA arch")
check(key(verbose=True) == base, "verbose does not change the binary")

for flags in (["-fplugin=/tmp/x.so"], ["-B/tmp"], ["-Wl,-rpath,/tmp"], ["-o", "/tmp/x"], ["-O2\nbuild x: y"],
              ["-wrapper", "sh"], ["@/tmp/options"], ["-I/tmp"], ["-include/tmp/x.h"]):
    check(not_shareable(extra_cflags=flags), f"{flags} is not shareable")
check(not_shareable(extra_ldflags=["-L/tmp"]), "-L is not shareable")
check(not_shareable(extra_include_paths=["/tmp"]), "include paths are not shareable")
check(not_shareable(cpp_sources='#include "/work/job-0001/evil.h"'), "absolute includes are not shareable")
check(not_shareable(cpp_sources='#include "../evil.h"'), ".. includes are not shareable")
check(not_shareable(cpp_sources='asm(".incbin \\"/etc/passwd\\"");'), ".incbin is not shareable")
check(not_shareable(name="../m"), "a name that is not an identifier")
check(not not_shareable(extra_cflags=[""], extra_ldflags=[""], verbose=True), "KernelBench's example flags are fine")
check(not not_shareable(cpp_sources="#include <ATen/cuda/CUDAContext.h>\n#include <vector>"), "system includes are fine")
check(not not_shareable(extra_cuda_cflags=["-O3", "--use_fast_math", "-arch=sm_90a", "--expt-relaxed-constexpr"]),
      "common nvcc flags are fine")

candidate = '''
from torch.utils.cpp_extension import load_inline as li
import torch.utils.cpp_extension
SRC = "int f();"
FUNCS = ["f"]
OTHER = "a"
OTHER = "b"
m1 = li("m1", SRC, functions=FUNCS, extra_cflags=["-O2"])
m2 = torch.utils.cpp_extension.load_inline(name="m2", cpp_sources=SRC + "\\n" + "int g();", functions=FUNCS)
m3 = li(name="m3", cpp_sources=OTHER)
def lazy(n):
    return li(name=n, cpp_sources=SRC)
'''
calls = scope["extract_calls"](candidate, PARAMS)
check(len(calls) == 4, f"four calls found, got {len(calls)}")
by_line = {line: (a, why) for line, a, why in calls}
m1, m2, m3, lazy = (by_line[k] for k in sorted(by_line))
check(m1[0] == {"name": "m1", "cpp_sources": "int f();", "functions": ["f"], "extra_cflags": ["-O2"]}, f"m1: {m1}")
check(m2[0] and m2[0]["cpp_sources"] == "int f();\nint g();", f"m2: {m2}")
check(m3[0] is None, "a constant assigned twice is not static")
check(lazy[0] is None, "a function argument is not static")
check(key(**{k: v for k, v in m1[0].items()}) == key(name="m1", extra_cflags=["-O2"]),
      "the static key equals the key of the same call at run time")
bomb = "A0 = 'xxxxxxxx'\n" + "".join(f"A{i+1} = A{i} + A{i}\n" for i in range(40)) + "load_inline(name='m', cpp_sources=A40)"
check(scope["extract_calls"](bomb, PARAMS)[0][1] is None, "a doubling chain stops at the size limit")

import os
import subprocess
base = os.getpriority(os.PRIO_PROCESS, 0)
forked = scope["niced"](lambda: int(subprocess.run(["nice"], capture_output=True, text=True).stdout))
check(forked == min(19, base + scope["BUILD_NICE"]), f"a compiler forked by the build thread runs at nice {forked}")
check(os.getpriority(os.PRIO_PROCESS, 0) == base, "the worker's own thread keeps its nice value")
check(scope["niced"](lambda: 7) == 7, "the build's value comes back")
try:
    scope["niced"](lambda: 1 / 0)
    check(False, "a failed build raises on the caller's thread")
except ZeroDivisionError:
    pass

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("extension keys: all checks passed")
