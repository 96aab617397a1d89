#pragma once
// What the candidate may change in the interpreter it shares with the harness, snapshotted
// before its import and compared later: the functions of torch, time, builtins... (by identity),
// torch's global state (hooks, modes, threads, numerics), the running Python threads and the
// processes below this one. Native threads are counted too, as a weaker signal.
#include <pybind11/pybind11.h>
#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kbench {

class InterpreterSnapshot {
 public:
  // Takes the snapshot now (call it before the candidate is imported).
  InterpreterSnapshot();

  // "module.attribute" names whose value is no longer the object snapshotted (first 20).
  [[nodiscard]] std::vector<std::string> patched() const;
  // "what: before -> now" for each piece of torch's global state that differs from the snapshot
  // (nn.Module global hooks, torch function/dispatch modes, grad/autocast modes, threads, numerics).
  [[nodiscard]] std::vector<std::string> state_changes() const;
  // Python threads alive now that were not alive at the snapshot: "name (target)".
  [[nodiscard]] std::vector<std::string> new_threads() const;
  // Native threads of this process alive now that were not at the snapshot (Linux:
  // /proc/self/task): "comm (tid)".
  [[nodiscard]] std::vector<std::string> new_native_threads() const;
  // Processes below this one running now that were not at the snapshot (exec/process_tree.hpp):
  // "comm (pid)".
  [[nodiscard]] std::vector<std::string> new_processes() const;

 private:
  pybind11::dict scope_;  // the snapshot, kept in a dict the candidate has no name for
  std::set<long> native_threads_;
  std::map<pid_t, std::string> processes_;
};

}  // namespace kbench
