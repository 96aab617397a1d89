#!/usr/bin/env python3
"""Builds the extension of every CUDA honest candidate (tests/honest/cuda/*.py) without a GPU.

Each candidate is imported in its own subprocess, exactly as kbench's worker imports it: the
module-level `load_inline(...)` calls run nvcc and the host compiler and load the built module.
Importing a built CUDA extension needs no GPU; calling its functions does, so nothing is called.

    ~/.cache/kbench/venv/bin/python3 tests/honest/compile_check.py [FILE ...]

Environment: TORCH_CUDA_ARCH_LIST (default 9.0, the H200), MAX_JOBS (default 1), CUDA_HOME
(default /usr/local/cuda), TORCH_EXTENSIONS_DIR (default a fresh temporary folder, removed at the
end). Prints one line per file and exits 1 when any build fails. Slow: one nvcc build per
extension, 1-3 minutes each on two cores.
"""
import glob
import os
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


def main(argv):
    files = argv or sorted(glob.glob(os.path.join(HERE, "cuda", "*.py")))
    env = dict(os.environ)
    env.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    env.setdefault("MAX_JOBS", "1")
    env.setdefault("CUDA_HOME", "/usr/local/cuda")
    env["PATH"] = os.path.join(env["CUDA_HOME"], "bin") + os.pathsep + env.get("PATH", "")
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
