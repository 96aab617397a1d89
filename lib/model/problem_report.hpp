#pragma once
// What `kbench worker --validate` reports about one problem (lib/worker/problem_validation.py):
// either the error that stopped the checks, or each check's verdict and the memory it took.
// Its JSON form (the worker's frame) is read and written in model/codec.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbench {

struct ProblemCheck {
  std::string name;    // runs, deterministic, inductor, depends_on_input, not_zeros, ...
  bool ok = false;
  std::string detail;  // what was seen, e.g. "output (8, 16) torch.float32"
};

struct ProblemReport {
  std::optional<std::string> error;  // the checks could not run (import error, timeout, ...)
  std::vector<ProblemCheck> checks;
  std::optional<std::uint64_t> peak_device_memory_bytes;  // CUDA only
  std::uint64_t peak_rss_bytes = 0;  // the worker's own ru_maxrss
};

}  // namespace kbench
