#pragma once
// Hooks on the reference model, counted when the reference is built (before the candidate is
// imported) and compared before each of its calls on fresh values. nn.Module runs global and
// per-instance hooks inside every call: a candidate sharing the process could install one that
// slows the reference the eager baseline times, or rewrites the outputs fresh-valued calls are
// checked against, and remove it again before the interpreter snapshot looks (a one-shot global
// hook that moves itself onto the instance). docs/integrity.md, `monkeypatch`.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace kbench {

class ModuleHooks {
 public:
  // Counts the global nn.Module hooks and those of `model` and every submodule, now.
  explicit ModuleHooks(pybind11::handle model);

  // "where: before -> now" for each hook dictionary whose size differs from the count taken.
  [[nodiscard]] std::vector<std::string> changed() const;

 private:
  pybind11::object model_;
  pybind11::dict counts_;  // where -> count at construction
  pybind11::object count_;
};

}  // namespace kbench
