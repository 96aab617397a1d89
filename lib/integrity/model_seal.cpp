#include "integrity/model_seal.hpp"

#include <pybind11/eval.h>

namespace py = pybind11;

namespace kbench {

const char* const kHookDescriptionCode = R"(
import torch.nn.modules.module as _hooks_module

_GLOBAL_HOOKS = ('_global_forward_pre_hooks', '_global_forward_hooks', '_global_forward_hooks_always_called',
                 '_global_backward_pre_hooks', '_global_backward_hooks', '_global_module_registration_hooks',
                 '_global_parameter_registration_hooks', '_global_buffer_registration_hooks')

def describe_hooks(hooks):
    if hooks is None:
        return 'none'
    return f'{type(hooks).__qualname__} of {dict.__len__(hooks)} @{id(hooks)}'

def global_hooks():
    return {'nn.Module.' + name: describe_hooks(vars(_hooks_module).get(name)) for name in _GLOBAL_HOOKS}
)";

namespace {

// Read through each module's __dict__ and _modules and the types' own dictionaries, never
// through nn.Module methods the candidate could have replaced. Values are strings, compared
// for equality: ids stand for identity, the model is kept alive meanwhile.
// Runs after kHookDescriptionCode, in the same scope.
constexpr const char* kDescribeCode = R"(
_LOCAL = ('_forward_pre_hooks', '_forward_hooks', '_forward_hooks_always_called',
          '_backward_pre_hooks', '_backward_hooks')
# What a call of a module goes through, resolved on its class (a new Linear._call_impl shadows
# Module's; _compiled_call_impl, None until compile(), is taken when set).
_CALL_PATH = ('__call__', '_wrapped_call_impl', '_call_impl', '_compiled_call_impl', 'forward')

def _resolved(cls, name):
    for klass in type.__getattribute__(cls, '__mro__'):
        own = type.__getattribute__(klass, '__dict__')
        if name in own:
            return f'{klass.__qualname__}.{name}@{id(own[name])}'
    return 'none'

def describe(model):
    out = global_hooks()
    stack = [('Model', model)]
    seen = set()
    while stack:
        path, module = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        cls = type(module)
        out[path] = f'{cls.__module__}.{cls.__qualname__}@{id(module)}'
        own = object.__getattribute__(module, '__dict__')
        for name in _CALL_PATH:
            out[f'{path}.{name}'] = _resolved(cls, name)
            if name in own:
                out[f'{path}.{name} (instance)'] = f'@{id(own[name])}'
        for name in _LOCAL:
            out[path + '.' + name] = describe_hooks(own.get(name))
        for child_name, child in (own.get('_modules') or {}).items():
            if child is not None:
                stack.append((path + '.' + child_name, child))
    return out
)";

}  // namespace

ModelSeal::ModelSeal(py::handle model) : model_(py::reinterpret_borrow<py::object>(model)) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kHookDescriptionCode, scope);
  py::exec(kDescribeCode, scope);
  describe_ = scope["describe"];
  sealed_ = describe_(model_);
}

std::vector<std::string> ModelSeal::changed() const {
  const py::dict now = describe_(model_);
  std::vector<std::string> out;
  for (auto [where, value] : now) {
    const std::string after = value.cast<std::string>();
    const std::string before = sealed_.contains(where) ? sealed_[where].cast<std::string>() : "absent";
    if (after != before) out.push_back(where.cast<std::string>() + ": " + before + " -> " + after);
  }
  for (auto [where, value] : sealed_)
    if (!now.contains(where)) out.push_back(where.cast<std::string>() + ": " + value.cast<std::string>() + " -> gone");
  return out;
}

}  // namespace kbench
