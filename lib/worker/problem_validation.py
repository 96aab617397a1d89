# `kbench validate`: is a problem file a sound benchmark? Run inside a sandboxed worker
# (`kbench worker --validate`), embedded in the binary (lib/CMakeLists.txt). Only the problem's
# own code runs here; no candidate. Each check is {"name", "ok", "detail"}; `validate` returns
# the list and the peak device memory as JSON text.
import importlib.util
import json
import resource
import sys
import traceback

import torch


def _last_line(exc):
    return "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1][:300]


def _load(path, sizes):
    spec = importlib.util.spec_from_file_location("kbench_problem", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["kbench_problem"] = module
    spec.loader.exec_module(module)
    for name, value in sizes.items():  # the suite's sizes for this device kind
        setattr(module, name, value)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, name):
            raise AttributeError(f"the problem file defines no `{name}`")
    return module


def _cast(x, device, dtype):
    if isinstance(x, torch.Tensor):
        x = x.to(device)
        return x.to(dtype) if x.is_floating_point() else x
    return x


def _model(module, device, dtype, seed):
    torch.manual_seed(seed)
    with torch.device(device):
        init = [_cast(x, device, dtype) for x in module.get_init_inputs()]
        return module.Model(*init).to(device=device, dtype=dtype)


def _inputs(module, device, dtype, seed):
    torch.manual_seed(seed)
    with torch.device(device):
        return [_cast(x, device, dtype) for x in module.get_inputs()]


def _flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for item in out for t in _flat(item)]
    return []


def _close(a, b, atol, rtol):
    return len(a) == len(b) and all(
        x.shape == y.shape and torch.allclose(x.double(), y.double(), atol=atol, rtol=rtol, equal_nan=True)
        for x, y in zip(a, b))


def _run(model, inputs, device):
    with torch.no_grad():
        out = _flat(model(*inputs))
    if torch.device(device).type == "cuda":  # the job's device, parsed by torch
        torch.cuda.synchronize()
    return [t.detach().clone() for t in out]


def validate(request_json):
    result = {"checks": [], "peak_memory_bytes": None}
    _validate(json.loads(request_json), result)
    # The worker's peak resident set (ru_maxrss is in KiB on Linux), torch's import included.
    result["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return json.dumps(result)


def _validate(r, result):
    device, atol, rtol = r["device"], r["atol"], r["rtol"]
    dtype = getattr(torch, r["dtype"])
    checks = result["checks"]

    def check(name, ok, detail=""):
        checks.append({"name": name, "ok": bool(ok), "detail": detail})
        return ok

    torch.set_grad_enabled(False)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        module = _load(r["problem_file"], r["sizes"])
    except BaseException as e:  # SystemExit too: the file is what is being judged
        check("imports", False, _last_line(e))
        return
    check("imports", True)
    seed = 1000
    if torch.device(device).type == "cuda":  # the job's device, parsed by torch
        torch.cuda.reset_peak_memory_stats()
    try:
        model = _model(module, device, dtype, seed)
        inputs = _inputs(module, device, dtype, seed + 1)
        out = _run(model, inputs, device)
    except torch.OutOfMemoryError as e:
        check("runs", False, "out of memory: " + _last_line(e))
        return
    except BaseException as e:
        check("runs", False, _last_line(e))
        return
    if torch.device(device).type == "cuda":  # the job's device, parsed by torch
        result["peak_memory_bytes"] = int(torch.cuda.max_memory_allocated())
    if not check("runs", len(out) > 0, "" if out else "forward returned no tensor"):
        return
    floating = [t for t in out if t.is_floating_point()]
    shapes = ", ".join(str(tuple(t.shape)) for t in out)
    checks[-1]["detail"] = f"output {shapes} {out[0].dtype}"

    # Same seed, fresh model and inputs: the same output (bit-exact, or within tolerance).
    try:
        again = _run(_model(module, device, dtype, seed), _inputs(module, device, dtype, seed + 1), device)
        exact = len(again) == len(out) and all(torch.equal(a, b) for a, b in zip(again, out))
        check("deterministic", exact or _close(again, out, atol, rtol),
              "bit-exact" if exact else ("within tolerance, not bit-exact" if _close(again, out, atol, rtol)
                                         else "two runs with the same seed differ beyond atol/rtol"))
    except BaseException as e:
        check("deterministic", False, _last_line(e))

    # Another seed's inputs, same weights: a sound problem's output changes.
    try:
        other = _run(model, _inputs(module, device, dtype, seed + 2), device)
        check("depends_on_input", not _close(other, out, atol, rtol),
              "" if not _close(other, out, atol, rtol)
              else "two different input seeds give outputs within atol/rtol: the output ignores its input")
    except BaseException as e:
        check("depends_on_input", False, _last_line(e))

    # KernelBench #165: trivial outputs that pass the comparison.
    zeros = [torch.zeros_like(t) for t in out]
    check("not_zeros", not _close(zeros, out, atol, rtol),
          "" if not _close(zeros, out, atol, rtol)
          else f"all outputs are within atol={atol:g}/rtol={rtol:g} of zeros: returning zeros passes")
    big = [t for t in floating if t.numel() > 1]
    if big:
        constant = [torch.full_like(t, t.double().mean().item()) for t in big]
        passes = _close(constant, big, atol, rtol)
        check("not_constant", not passes,
              "" if not passes else "every output is within atol/rtol of its mean: a constant passes")

    if r.get("inductor", True):
        try:
            compiled = torch.compile(model)
            got = _run(compiled, inputs, device)
            check("inductor", _close(got, out, atol, rtol),
                  "" if _close(got, out, atol, rtol) else "Inductor's output differs from eager beyond atol/rtol")
        except BaseException as e:
            check("inductor", False, "does not compile under Inductor: " + _last_line(e))
    return
