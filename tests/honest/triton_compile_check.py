#!/usr/bin/env python3
"""Compiles every Triton kernel a suite's candidates launch for the H200 (sm_90), on a CPU machine.

kbench's CPU path runs Triton kernels in Triton's interpreter, which executes their Python and
so accepts code that Triton's compiler refuses on the GPU (a plain float global read inside
@triton.jit, for instance: `l1_01_gelu_tanh__jit_helpers.py` passed on the CPU and failed on the
H200). This check closes that gap without a GPU: each candidate's ModelNew runs on its problem's
CPU-sized inputs with `JITFunction.run` replaced by a full `triton.compile` (TTIR -> TTGIR ->
LLVM -> PTX -> cubin with Triton's bundled ptxas) for sm_90, using the argument types, constexpr
values and launch options of that very launch. No kernel runs, so outputs are left
uninitialised: the check is about compiling, kbench's run is about results. Every config of an
@triton.autotune is compiled (there is no benchmarker on the CPU).

    ~/.cache/kbench/venv/bin/python3 tests/honest/triton_compile_check.py SUITE.yaml [...]

Prints one line per candidate and exits 1 when any kernel fails to compile.
"""
import glob
import importlib.util
import inspect
import os
import sys
import traceback

import torch
import yaml

os.environ.pop("TRITON_INTERPRET", None)
import triton  # noqa: E402  (after TRITON_INTERPRET is cleared: real JITFunctions)
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.runtime.autotuner import Autotuner  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
LAUNCH_OPTIONS = {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_cooperative_grid"}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64}
POINTER_TYPES = {torch.float32: "*fp32", torch.float16: "*fp16", torch.bfloat16: "*bf16", torch.float64: "*fp64",
                 torch.int64: "*i64", torch.int32: "*i32", torch.int16: "*i16", torch.int8: "*i8",
                 torch.uint8: "*u8", torch.bool: "*i1"}


class CompileFailure(Exception):
    pass


def scalar_type(value):
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -2**31 <= value < 2**31 else "i64"
    if isinstance(value, float):
        return "fp32"
    raise TypeError(f"argument of type {type(value).__name__}")


def compile_launch(fn, args, kwargs, compiled):
    options = {k: kwargs.pop(k) for k in list(kwargs) if k in LAUNCH_OPTIONS}
    bound = inspect.signature(fn.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    signature, constexprs = {}, {}
    for param in fn.params:
        value = bound.arguments[param.name]
        if param.is_constexpr or value is None:
            signature[param.name] = "constexpr"
            constexprs[param.name] = value
        elif isinstance(value, torch.Tensor):
            signature[param.name] = POINTER_TYPES[value.dtype]
        else:
            signature[param.name] = scalar_type(value)
    key = (fn.fn.__qualname__, tuple(signature.items()), tuple(sorted((k, repr(v)) for k, v in constexprs.items())),
           tuple(sorted(options.items())))
    if key in compiled:
        return
    try:
        triton.compile(ASTSource(fn, signature, constexprs), target=TARGET, options=options)
    except Exception as error:  # noqa: BLE001  (any compiler failure is the finding)
        cause = error
        while cause.__cause__ is not None:
            cause = cause.__cause__
        # The compiler's text is the source excerpt, a caret, then the reason: keep the reason.
        reason = [line for line in str(cause).strip().splitlines() if line.strip()][-1:] or [type(cause).__name__]
        raise CompileFailure(f"{fn.fn.__name__}: {type(error).__name__}: {reason[0]}") from None
    compiled[key] = fn.fn.__name__


# The kernels compiled for the candidate being checked: key -> kernel name.
compiled = {}


def install_hooks():
    def run(self, *args, grid, warmup=False, **kwargs):
        compile_launch(self, args, dict(kwargs), compiled)

    def autotune_run(self, *args, **kwargs):
        for config in self.configs:
            self.fn.run(*args, **kwargs, **config.all_kwargs())

    JITFunction.run = run
    Autotuner.run = autotune_run


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def candidates_of(suite, suite_dir, problem):
    patterns = problem.get("candidates", suite.get("candidates"))
    patterns = [patterns] if isinstance(patterns, str) else patterns or []
    files = []
    for pattern in patterns:
        files += sorted(glob.glob(os.path.join(suite_dir, pattern.replace("{id}", problem["id"]))))
    return [f for f in files if "import triton" in open(f).read()]


def check_suite(path):
    suite = yaml.safe_load(open(path))
    suite_dir = os.path.dirname(os.path.abspath(path))
    default_dtype = suite.get("defaults", {}).get("dtype", "float32")
    failures = 0
    for problem in suite["problems"]:
        dtype = DTYPES[problem.get("overrides", {}).get("dtype", default_dtype)]
        for candidate in candidates_of(suite, suite_dir, problem):
            compiled.clear()
            try:
                module = load(os.path.join(suite_dir, problem["file"]), "problem")
                for name, value in problem.get("sizes", {}).get("cpu", {}).items():
                    setattr(module, name, value)
                torch.manual_seed(0)
                init = module.get_init_inputs()
                inputs = [t.to(dtype) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
                          for t in module.get_inputs()]
                model = load(candidate, "candidate").ModelNew(*init).to(dtype)
                with torch.no_grad():
                    model(*inputs)
                line = f"ok   {len(compiled)} kernel build(s): {', '.join(sorted(set(compiled.values())))}"
                if not compiled:
                    line, failures = "FAIL no Triton kernel was launched", failures + 1
            except CompileFailure as error:
                line, failures = f"FAIL {error}", failures + 1
            except Exception:  # noqa: BLE001
                line, failures = "FAIL " + traceback.format_exc(limit=3).strip().splitlines()[-1], failures + 1
            print(f"{problem['id']} / {os.path.basename(candidate)}: {line}", flush=True)
    return failures


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    install_hooks()
    torch.set_grad_enabled(False)
    failures = sum(check_suite(path) for path in sys.argv[1:])
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
