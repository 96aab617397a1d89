#include "integrity/interpreter_snapshot.hpp"

#include <pybind11/eval.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace py = pybind11;

namespace kbench {
namespace {

// Only callables and classes are compared: plain values (flags, counters, caches) change
// legitimately as torch initialises itself; functions do not.
constexpr const char* kSnapshotCode = R"(
import builtins, gc, importlib, sys, threading, time
import torch

def _targets():
    names = ['torch', 'torch.nn.functional', 'torch.cuda', 'torch.linalg', 'torch.fft',
             'torch.special', 'torch.autograd', 'torch.backends.cudnn', 'torch._C', 'torch._C._nn',
             'torch.cuda.graphs', 'torch.utils._device', 'time', 'builtins', 'gc', 'threading', 'numpy']
    out = []
    for name in names:
        try:
            out.append((name, vars(importlib.import_module(name))))
        except Exception:
            pass
    classes = [torch.Tensor, torch._C.TensorBase, torch.nn.Module, torch.cuda.Event,
               torch.cuda.Stream, torch.cuda.graphs.CUDAGraph]
    # Every module class of torch.nn (nn.Linear.forward patched slows the reference that uses it
    # while the candidate calls F.linear), the device context the harness builds inputs under,
    # and the problem's own module and classes (the reference Model).
    classes += [c for c in vars(torch.nn).values() if isinstance(c, type)]
    try:
        classes.append(importlib.import_module('torch.utils._device').DeviceContext)
    except Exception:
        pass
    problem = sys.modules.get('kbench_problem')
    if problem is not None:
        out.append(('kbench_problem', vars(problem)))
        classes += [c for c in vars(problem).values() if isinstance(c, type) and c.__module__ == problem.__name__]
    seen = set()
    for cls in classes:
        if id(cls) not in seen:
            seen.add(id(cls))
            out.append((cls.__module__ + '.' + cls.__qualname__, vars(cls)))
    return out

def _take():
    return {(owner, attr): value for owner, space in _targets()
            for attr, value in list(space.items())
            if callable(value) or isinstance(value, (staticmethod, classmethod, property))}

def _patched(before):
    now = {owner: space for owner, space in _targets()}
    changed = []
    for (owner, attr), value in before.items():
        space = now.get(owner)
        if space is None:
            continue
        if space.get(attr, value) is not value or attr not in space:
            changed.append(owner + '.' + attr)
    return sorted(changed)

# Threads torch starts and restarts by itself, seen on the H200 after honest Triton candidates:
# Inductor's compile-worker pool timer (a Timer thread that quiesces the pool when idle).
_LIBRARY_THREAD_MODULES = ('torch._inductor.compile_worker.',)

def _library_thread(t):
    module = getattr(getattr(t, '_target', None), '__module__', None) or ''
    return module.startswith(_LIBRARY_THREAD_MODULES)

def _thread_names(idents):
    return [f'{t.name} ({getattr(getattr(t, "_target", None), "__qualname__", "?")})'
            for t in threading.enumerate()
            if t.ident not in idents and t.is_alive() and not _library_thread(t)]

# Global state that changes what the reference and the baselines run in this process without
# replacing any function: nn.Module's global hooks (a pre-hook that slows the reference, a hook
# that rewrites its outputs), torch function and dispatch modes (which see every input built),
# grad, anomaly and autocast modes, CPU threads, numerics. The harness set its values before
# the snapshot (problem_context.cpp); a candidate may change them only inside its own calls.
def _state():
    import torch.nn.modules.module as m
    out = {}
    for name in ('_global_forward_pre_hooks', '_global_forward_hooks', '_global_forward_hooks_always_called',
                 '_global_backward_pre_hooks', '_global_backward_hooks', '_global_module_registration_hooks',
                 '_global_parameter_registration_hooks', '_global_buffer_registration_hooks'):
        hooks = getattr(m, name, None)
        if hooks is not None:
            out['nn.Module ' + name.strip('_').replace('_', ' ')] = len(hooks)
    backends = torch.backends
    probes = [
        ('torch function modes', lambda: torch._C._len_torch_function_stack()),
        ('torch dispatch modes', lambda: torch._C._len_torch_dispatch_stack()),
        ('torch.is_grad_enabled()', torch.is_grad_enabled),
        ('torch.is_inference_mode_enabled()', torch.is_inference_mode_enabled),
        ('torch.is_anomaly_enabled()', torch.is_anomaly_enabled),
        ('torch.is_autocast_enabled("cpu")', lambda: torch.is_autocast_enabled('cpu')),
        ('torch.is_autocast_enabled("cuda")', lambda: torch.is_autocast_enabled('cuda')),
        ('torch.get_num_threads()', torch.get_num_threads),
        ('torch.get_num_interop_threads()', torch.get_num_interop_threads),
        ('torch.get_default_dtype()', torch.get_default_dtype),
        ('torch.get_float32_matmul_precision()', torch.get_float32_matmul_precision),
        ('torch.are_deterministic_algorithms_enabled()', torch.are_deterministic_algorithms_enabled),
        ('torch.backends.cudnn.enabled', lambda: backends.cudnn.enabled),
        ('torch.backends.cudnn.benchmark', lambda: backends.cudnn.benchmark),
        ('torch.backends.cudnn.deterministic', lambda: backends.cudnn.deterministic),
        ('torch.backends.cudnn.allow_tf32', lambda: backends.cudnn.allow_tf32),
        ('torch.backends.cuda.matmul.allow_tf32', lambda: backends.cuda.matmul.allow_tf32),
        ('torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction',
         lambda: backends.cuda.matmul.allow_fp16_reduced_precision_reduction),
        ('torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction',
         lambda: backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
        ('torch.backends.mkldnn.enabled', lambda: backends.mkldnn.enabled),
    ]
    for name, probe in probes:
        try:
            out[name] = repr(probe())
        except Exception:
            pass  # not in this torch build
    return out

def _state_changes(before):
    now = _state()
    return [f'{name}: {before[name]} -> {now.get(name, "gone")}' for name in sorted(before)
            if now.get(name) != before[name]]

snapshot = _take()
state = _state()
threads = {t.ident for t in threading.enumerate()}
)";

std::set<long> native_thread_ids() {
  std::set<long> ids;
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error))
    ids.insert(std::strtol(it->path().filename().c_str(), nullptr, 10));
  return ids;
}

std::string thread_name(long tid) {
  std::string name;
  std::getline(std::ifstream("/proc/self/task/" + std::to_string(tid) + "/comm"), name);
  return name;
}

}  // namespace

InterpreterSnapshot::InterpreterSnapshot() {
  scope_["__builtins__"] = py::module_::import("builtins");
  py::exec(kSnapshotCode, scope_);
  native_threads_ = native_thread_ids();
}

std::vector<std::string> InterpreterSnapshot::patched() const {
  py::list names = scope_["_patched"](scope_["snapshot"]);
  std::vector<std::string> out;
  for (auto name : names) out.push_back(name.cast<std::string>());
  return out;
}

std::vector<std::string> InterpreterSnapshot::state_changes() const {
  py::list changes = scope_["_state_changes"](scope_["state"]);
  std::vector<std::string> out;
  for (auto change : changes) out.push_back(change.cast<std::string>());
  return out;
}

std::vector<std::string> InterpreterSnapshot::new_threads() const {
  py::list names = scope_["_thread_names"](scope_["threads"]);
  std::vector<std::string> out;
  for (auto name : names) out.push_back(name.cast<std::string>());
  return out;
}

std::vector<std::string> InterpreterSnapshot::new_native_threads() const {
  std::vector<std::string> out;
  for (long tid : native_thread_ids())
    if (!native_threads_.count(tid)) out.push_back(thread_name(tid) + " (" + std::to_string(tid) + ")");
  return out;
}

}  // namespace kbench
