#pragma once
// Watches the Python calls made during one checked candidate call through a C-level profile hook
// (PyEval_SetProfile): which code of the problem file ran (the reference, reached via gc or a
// re-import) and which Triton kernels were launched. Python code cannot see or unhook it without
// being noticed (`still_installed`).
#include <pybind11/pybind11.h>

#include <map>
#include <string>

namespace kbench {

struct TraceRecord {
  std::string reference_code;             // first problem-file function seen, "name (line N)"
  std::map<std::string, int> launches;    // Triton kernel name -> launches
  bool hook_removed = false;              // the candidate replaced or removed the profile hook
  [[nodiscard]] int total_launches() const;
};

class CallTracer {
 public:
  // `problem_file`: the co_filename of the problem's code objects. Triton's launch entry points
  // (JITFunction.run, and InterpretedFunction.run under TRITON_INTERPRET) are found when present.
  explicit CallTracer(const std::string& problem_file);
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
