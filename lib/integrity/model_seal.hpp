#pragma once
// The reference model as it was before the candidate's import, compared before each of its calls
// on fresh values: its module tree (which object at which path, of which class), the hooks of
// every module and nn.Module's global ones, and the methods a call goes through (nn.Module's
// __call__ and _call_impl, each class's forward). A candidate sharing the process could change
// any of these so that the reference the eager baseline times gets slower, or the outputs
// fresh-valued calls are checked against get wrong, and undo the change before the interpreter
// snapshot looks (a one-shot global hook that moves itself onto the instance). Weights are
// checked apart (FreshInputs). docs/integrity.md, `monkeypatch`.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace kbench {

// Python defining `describe_hooks(hooks)` (a hook dict by exact type, its own length and
// identity: a dict subclass can report no entries while nn.Module still runs them, as it tests
// truth, not len) and `global_hooks()` (nn.Module's global hook dicts so described). The
// interpreter snapshot runs it too, for its look at torch's global state.
extern const char* const kHookDescriptionCode;

class ModelSeal {
 public:
  // Describes `model` (every submodule, its hooks, its class's call path) and the global hooks, now.
  explicit ModelSeal(pybind11::handle model);

  // "where: before -> now" for each part of the description that differs now.
  [[nodiscard]] std::vector<std::string> changed() const;

 private:
  pybind11::object model_;
  pybind11::dict sealed_;  // where -> description at construction
  pybind11::object describe_;
};

}  // namespace kbench
