#pragma once
// Watches the Python calls made during one checked candidate call through a C-level profile hook
// (PyEval_SetProfile): which code of the problem file ran (the reference, reached via gc or a
// re-import) and which of the candidate's own kernels were launched: its Triton JIT functions,
// the functions of the extensions it built, and the torch operators those registered. Python
// code cannot see or unhook it without being noticed (`still_installed`).
#include <pybind11/pybind11.h>

#include <map>
#include <string>

#include "integrity/native_baseline.hpp"

namespace kbench {

struct TraceRecord {
  std::string reference_code;             // first problem-file function seen, "name (line N)"
  // Own-kernel launches by name: Triton kernels by their function's name, extension functions
  // as "extension:<name>", operators of the candidate's extensions as "op:<ns>::<name>".
  std::map<std::string, int> launches;
  bool hook_removed = false;              // the candidate replaced or removed the profile hook
  [[nodiscard]] int total_launches() const;
};

class CallTracer {
 public:
  // `problem_file`, `candidate_file`: the co_filename of the problem's and the candidate's code
  // objects. `natives` (kept by reference) tells the candidate's native objects and operator
  // namespaces from the rest. Triton's launch entry points (JITFunction.run, and
  // InterpretedFunction.run under TRITON_INTERPRET) are found when present.
  CallTracer(const std::string& problem_file, const std::string& candidate_file, const NativeBaseline& natives);
  ~CallTracer();
  CallTracer(const CallTracer&) = delete;
  CallTracer& operator=(const CallTracer&) = delete;

  // Installs the hook, calls `fn`, removes the hook; what was seen is added to `record`.
  pybind11::object trace(const std::function<pybind11::object()>& fn, TraceRecord& record);

 private:
  struct State;
  State* state_;
};

}  // namespace kbench
