"""KernelBench's own evaluator on the throughput benchmark's problems and honest candidates, for
the wall time per candidate (issue #14: kbench must take >= 10x less on the median problem).

What runs is an unmodified KernelBench checkout (KB_DIR with src/kernelbench; e.g.
`git -C /work/.mirror/ScalingIntelligence+KernelBench/repo archive HEAD | tar -x -C .kb`), used
the way its scripts/run_and_check.py evaluates one sample locally: one fresh Python process per
candidate, its static checker, `kernelbench.eval.eval_kernel_against_ref` (5 correctness trials, 100 timed trials,
cuda_event timing, backend triton, fp32), then `kernelbench.timing.measure_ref_program_time`
for eager and for torch.compile, 100 trials each. run_and_check.py itself is not run: it imports
modal and pydra at the top, which the GPU machine has no registry to install; this is its local
branch, call for call.

Packages that kernelbench imports at module level but that its evaluation path never calls
(openai, litellm, dotenv, tqdm: LLM queries and progress bars; requests) get inert stand-ins when
they are missing, and pydantic.BaseModel (the result record) a plain field container; every stand-in
used is listed in the output. Nothing of KernelBench's code is changed or copied.

  python3 benchmarks/throughput/kernelbench_eval.py KB_DIR [--problems 8] [--per-problem 1]
      [--budget-s 200] [--json OUT]
  python3 benchmarks/throughput/kernelbench_eval.py KB_DIR --import-only   # CPU: the import works
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "rl_suite.yaml"

# Run in the child: KernelBench's local evaluation of one candidate, timed as a whole.
CHILD = r'''
import json, sys, time, types
started = time.monotonic()
kb_src, ref_path, cand_path, import_only = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
sys.path.insert(0, kb_src)
stand_ins = []

def stand_in(name, **attrs):
    try:
        __import__(name)
        return
    except ImportError:
        pass
    module = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    def missing(attr):
        raise AttributeError(f"{name}.{attr}: not installed here (a stand-in for the evaluation path)")
    module.__getattr__ = missing
    sys.modules[name] = module
    stand_ins.append(name)

class _BaseModel:  # pydantic.BaseModel as KernelExecResult uses it: annotated fields, defaults
    def __init__(self, **values):
        import copy
        for cls in reversed(type(self).__mro__):
            for field in getattr(cls, "__annotations__", {}):
                if hasattr(cls, field):
                    setattr(self, field, copy.deepcopy(getattr(cls, field)))
        for key, value in values.items():
            setattr(self, key, value)
    def __repr__(self):
        return f"{type(self).__name__}({vars(self)})"

stand_in("dotenv", load_dotenv=lambda *a, **k: False)
stand_in("tqdm", tqdm=lambda it=None, *a, **k: it)
stand_in("openai", OpenAI=None)
stand_in("litellm", completion=None)
stand_in("requests")
stand_in("pydantic", BaseModel=_BaseModel)
stand_in("datasets")

import torch
from kernelbench import eval as kernel_eval
from kernelbench import utils as kernel_utils
from kernelbench.kernel_static_checker import validate_kernel_static
from kernelbench.timing import measure_ref_program_time
imported_s = time.monotonic() - started
out = {"stand_ins": stand_ins, "import_s": imported_s}
if not import_only:
    ref_src, cand_src = open(ref_path).read(), open(cand_path).read()
    # run_and_check.py's defaults: the static checker, then the GPU architecture.
    static_ok, static_errors, _ = validate_kernel_static(cand_src, backend="triton", precision="fp32")
    out["static_check"] = {"ok": static_ok, "errors": static_errors}
    device = torch.device("cuda:0")
    kernel_utils.set_gpu_arch(["Hopper"])
    result = kernel_eval.eval_kernel_against_ref(
        original_model_src=ref_src, custom_model_src=cand_src, measure_performance=True,
        timing_method="cuda_event", verbose=False, num_correct_trials=5, num_perf_trials=100,
        device=device, backend="triton", precision=torch.float32)
    eager = measure_ref_program_time(ref_arch_name="Reference Program", ref_arch_src=ref_src, num_trials=100,
                                     use_torch_compile=False, timing_method="cuda_event", device=device,
                                     verbose=False, precision="fp32")
    compiled = measure_ref_program_time(ref_arch_name="Reference Program", ref_arch_src=ref_src, num_trials=100,
                                        use_torch_compile=True, timing_method="cuda_event", device=device,
                                        verbose=False, precision="fp32")
    out.update({"compiled": bool(result and result.compiled), "correctness": bool(result and result.correctness),
                "runtime_ms": getattr(result, "runtime", None), "eager_ms": eager.get("mean"),
                "compile_ms": compiled.get("mean")})
out["wall_s"] = time.monotonic() - started
print("KB-RESULT " + json.dumps(out), flush=True)
'''


def problems_and_files(count):
    import yaml
    suite = yaml.safe_load(SUITE.read_text())
    return [(p["id"], (SUITE.parent / p["file"]).resolve()) for p in suite["problems"][:count]]


def run_one(kb_src, ref, cand, import_only, timeout_s):
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(kb_src), str(ref), str(cand), "1" if import_only else "0"],
                          capture_output=True, text=True, timeout=timeout_s)
    wall = time.monotonic() - started  # the process as a whole: start-up, imports, evaluation
    line = next((l for l in proc.stdout.splitlines() if l.startswith("KB-RESULT ")), None)
    if proc.returncode != 0 or line is None:
        return {"error": (proc.stderr or proc.stdout)[-600:], "process_wall_s": wall}
    result = json.loads(line[len("KB-RESULT "):])
    result["process_wall_s"] = wall
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kb_dir", help="an unmodified KernelBench checkout (with src/kernelbench)")
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--per-problem", type=int, default=1, help="honest candidates per problem")
    parser.add_argument("--budget-s", type=float, default=None, help="start no candidate after this long")
    parser.add_argument("--import-only", action="store_true", help="check the import and the stand-ins, no GPU")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    kb_src = Path(args.kb_dir).resolve() / "src"
    if not (kb_src / "kernelbench" / "eval.py").is_file():
        print(f"{args.kb_dir}: no src/kernelbench/eval.py: not a KernelBench checkout (see --help)", file=sys.stderr)
        return 2
    if args.import_only:
        r = run_one(kb_src, "-", "-", True, 300)
        print(json.dumps(r))
        return 0 if "error" not in r else 1
    started = time.monotonic()
    rows = []
    for problem, ref in problems_and_files(args.problems):
        for cand in sorted((HERE / "candidates" / problem).glob("honest_*.py"))[: args.per_problem]:
            if args.budget_s and time.monotonic() - started > args.budget_s:
                rows.append({"problem": problem, "candidate": cand.name, "skipped": "budget"})
                continue
            r = run_one(kb_src, ref, cand, False, 600)
            r.update({"problem": problem, "candidate": cand.name})
            rows.append(r)
            status = "error" if "error" in r else ("correct" if r.get("correctness") else "incorrect")
            print(f"{problem:22} {cand.name:28} {status:9} wall {r['process_wall_s']:6.1f} s"
                  + (f"  runtime {r['runtime_ms']:.3f} ms eager {r['eager_ms']:.3f} ms compile {r['compile_ms']:.3f} ms"
                     if status != "error" and r.get("runtime_ms") not in (None, -1.0) else "")
                  + (f"  {r['error'][-200:]!r}" if status == "error" else ""), flush=True)
    done = [r for r in rows if "process_wall_s" in r and "error" not in r]
    per_problem = {}
    for r in done:
        per_problem.setdefault(r["problem"], []).append(r["process_wall_s"])
    medians = sorted(statistics.median(v) for v in per_problem.values())
    summary = {"rows": rows, "stand_ins": sorted({s for r in done for s in r.get("stand_ins", [])}),
               "per_problem_median_wall_s": {k: statistics.median(v) for k, v in per_problem.items()},
               "median_problem_wall_s": statistics.median(medians) if medians else None}
    print(f"KernelBench evaluator: {len(done)} candidates over {len(per_problem)} problems; "
          f"wall per candidate on the median problem {summary['median_problem_wall_s']} s; "
          f"stand-ins used: {', '.join(summary['stand_ins']) or 'none'}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    errors = [r for r in rows if "error" in r]
    return 1 if errors or not done else 0


if __name__ == "__main__":
    sys.exit(main())
