#include "integrity/module_hooks.hpp"

#include <pybind11/eval.h>

namespace py = pybind11;

namespace kbench {
namespace {

// Read through each module's __dict__ and _modules, never through nn.Module methods the
// candidate could have replaced.
constexpr const char* kCountCode = R"(
import torch.nn.modules.module as _module

_GLOBAL = ('_global_forward_pre_hooks', '_global_forward_hooks', '_global_forward_hooks_always_called',
           '_global_backward_pre_hooks', '_global_backward_hooks')
_LOCAL = ('_forward_pre_hooks', '_forward_hooks', '_forward_hooks_always_called',
          '_backward_pre_hooks', '_backward_hooks')

def count(model):
    out = {}
    for name in _GLOBAL:
        hooks = vars(_module).get(name)
        out['nn.Module.' + name] = len(hooks) if hooks is not None else 0
    stack = [('Model', model)]
    seen = set()
    while stack:
        path, module = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        own = object.__getattribute__(module, '__dict__')
        for name in _LOCAL:
            hooks = own.get(name)
            out[path + '.' + name] = len(hooks) if hooks is not None else 0
        for child_name, child in (own.get('_modules') or {}).items():
            if child is not None:
                stack.append((path + '.' + child_name, child))
    return out
)";

}  // namespace

ModuleHooks::ModuleHooks(py::handle model) : model_(py::reinterpret_borrow<py::object>(model)) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kCountCode, scope);
  count_ = scope["count"];
  counts_ = count_(model_);
}

std::vector<std::string> ModuleHooks::changed() const {
  const py::dict now = count_(model_);
  std::vector<std::string> out;
  for (auto [where, count] : now) {
    const long before = counts_.contains(where) ? counts_[where].cast<long>() : 0;
    const long after = count.cast<long>();
    if (after != before) out.push_back(where.cast<std::string>() + ": " + std::to_string(before) + " -> " + std::to_string(after));
  }
  for (auto [where, count] : counts_)
    if (!now.contains(where)) out.push_back(where.cast<std::string>() + ": gone");
  return out;
}

}  // namespace kbench
