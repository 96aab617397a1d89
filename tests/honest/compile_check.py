#!/usr/bin/env python3
"""Builds the extension of every CUDA honest candidate (tests/honest/cuda/*.py) without a GPU.

Each candidate is imported in its own subprocess, exactly as kbench's worker imports it: the
module-level `load_inline(...)` calls run nvcc and the host compiler and load the built module.
Importing a built CUDA extension needs no GPU; calling its functions does, so nothing is called.

    ~/.cache/kbench/venv/bin/python3 tests/honest/compile_check.py [--one-unit] [FILE ...]

--one-unit is the quick pre-check: the CUDA sources of every file, each in its own namespace
(macros #undef'd after it), are compiled by one nvcc call, so torch's headers are parsed once
instead of twice per extension. It proves the kernels and their C++ wrappers compile for the
architecture; it builds no pybind module (load_inline generates those bindings itself).

Environment: TORCH_CUDA_ARCH_LIST (default 9.0, the H200), MAX_JOBS (default 1), CUDA_HOME
(default /usr/local/cuda), TORCH_EXTENSIONS_DIR (default a fresh temporary folder, removed at the
end). Prints one line per file and exits 1 when any build fails. Slow: one nvcc build per
extension, 1-3 minutes each on two cores.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Runs in the child: import the candidate under a private module name, report the extension
# modules it built (any module object held at module level that came from a .so).
IMPORT_ONE = r"""
import importlib.util, sys, types
path = sys.argv[1]
spec = importlib.util.spec_from_file_location("honest_candidate", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
built = sorted(
    f"{name}={value.__name__}" for name, value in vars(module).items()
    if isinstance(value, types.ModuleType) and getattr(value, "__file__", "").endswith(".so"))
assert built, "no load_inline extension at module level"
assert hasattr(module, "ModelNew"), "no ModelNew"
print("BUILT " + " ".join(built))
"""


def cuda_sources_of(path):
    """The (name, cuda_sources) of every load_inline call the file makes at import."""
    import torch.utils.cpp_extension as cpp_extension
    calls = []

    def capture(name, cpp_sources, cuda_sources=None, **kwargs):
        calls.append((name, cuda_sources or ""))
        return None

    real = cpp_extension.load_inline
    cpp_extension.load_inline = capture
    try:
        source = open(path).read()
        exec(compile(source, path, "exec"), {"__name__": "honest_candidate", "__file__": path})
    finally:
        cpp_extension.load_inline = real
    return calls


def one_unit(files, env):
    from torch.utils.cpp_extension import include_paths
    parts = ["#include <torch/extension.h>", "#include <cuda_runtime.h>",
             "#include <ATen/cuda/CUDAContext.h>", "#include <ATen/AccumulateType.h>",
             "#include <algorithm>", "#include <vector>"]
    count = 0
    for path in files:
        for name, cuda in cuda_sources_of(path):
            cuda = cuda if isinstance(cuda, str) else "\n".join(cuda)
            if not cuda:
                continue
            body = "\n".join(line for line in cuda.splitlines() if not line.strip().startswith("#include"))
            parts.append(f"// {os.path.basename(path)}: {name}\nnamespace ext_{count} {{\n{body}\n}}")
            parts += [f"#undef {macro}" for macro in re.findall(r"^\s*#define\s+(\w+)", body, re.M)]
            count += 1
    arch = env["TORCH_CUDA_ARCH_LIST"].split(";")[0].replace(".", "")
    with tempfile.TemporaryDirectory(prefix="kbench-honest-unit-") as tmp:
        unit = os.path.join(tmp, "all.cu")
        open(unit, "w").write("\n".join(parts) + "\n")
        command = [os.path.join(env["CUDA_HOME"], "bin", "nvcc"), "-c", unit, "-o", os.path.join(tmp, "all.o"),
                   "-std=c++17", f"-arch=sm_{arch}", "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC",
                   "-D_GLIBCXX_USE_CXX11_ABI=1", "-DTORCH_EXTENSION_NAME=honest_unit",
                   "-DTORCH_API_INCLUDE_EXTENSION_H", "-D__CUDA_NO_HALF_OPERATORS__",
                   "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
                   "-D__CUDA_NO_HALF2_OPERATORS__"]
        command += [f"-I{p}" for p in include_paths("cuda")]
        command += [f"-I{p}" for p in sorted(set(glob.glob("/usr/include/python3*")))[:1]]
        start = time.monotonic()
        proc = subprocess.run(command, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - start
    print((proc.stdout + proc.stderr).strip())
    print(f"{'ok' if proc.returncode == 0 else 'FAILED'}: {count} extensions of {len(files)} files "
          f"in one nvcc unit for sm_{arch}, {seconds:.1f} s", flush=True)
    return proc.returncode == 0


def main(argv):
    unit = "--one-unit" in argv
    argv = [a for a in argv if a != "--one-unit"]
    files = argv or sorted(glob.glob(os.path.join(HERE, "cuda", "*.py")))
    env = dict(os.environ)
    env.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    env.setdefault("MAX_JOBS", "1")
    env.setdefault("CUDA_HOME", "/usr/local/cuda")
    env["PATH"] = os.path.join(env["CUDA_HOME"], "bin") + os.pathsep + env.get("PATH", "")
    if unit:
        return 0 if one_unit(files, env) else 1
    own_dir = None
    if "TORCH_EXTENSIONS_DIR" not in env:
        own_dir = tempfile.mkdtemp(prefix="kbench-honest-ext-")
        env["TORCH_EXTENSIONS_DIR"] = own_dir
    failures = 0
    print(f"arch {env['TORCH_CUDA_ARCH_LIST']}, MAX_JOBS {env['MAX_JOBS']}, "
          f"extensions in {env['TORCH_EXTENSIONS_DIR']}", flush=True)
    try:
        for path in files:
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-c", IMPORT_ONE, path], env=env,
                                  capture_output=True, text=True)
            seconds = time.monotonic() - start
            name = os.path.basename(path)
            built = [line for line in proc.stdout.splitlines() if line.startswith("BUILT ")]
            if proc.returncode == 0 and built:
                print(f"ok      {seconds:6.1f} s  {name}  {built[-1][6:]}", flush=True)
                continue
            failures += 1
            print(f"FAILED  {seconds:6.1f} s  {name}", flush=True)
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-40:]
            print("\n".join("        " + line for line in tail), flush=True)
    finally:
        if own_dir:
            subprocess.run(["rm", "-rf", own_dir])
    print(f"{len(files) - failures} of {len(files)} built", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
