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
import builtins, gc, importlib, threading, time
import torch

def _targets():
    names = ['torch', 'torch.nn.functional', 'torch.cuda', 'torch.linalg', 'torch.fft',
             'torch.special', 'torch.autograd', 'torch.backends.cudnn', 'torch._C', 'torch._C._nn',
             'torch.cuda.graphs', 'time', 'builtins', 'gc', 'threading', 'numpy']
    out = []
    for name in names:
        try:
            out.append((name, vars(importlib.import_module(name))))
        except Exception:
            pass
    for cls in (torch.Tensor, torch._C.TensorBase, torch.nn.Module, torch.cuda.Event,
                torch.cuda.Stream, torch.cuda.graphs.CUDAGraph):
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

snapshot = _take()
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
