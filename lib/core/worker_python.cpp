#include "core/worker_python.hpp"

#include <cstdlib>

namespace kbench {

std::string python_executable() {
  const char* override_path = std::getenv("KBENCH_PYTHON");
  return override_path && *override_path ? override_path : KBENCH_DEFAULT_PYTHON;
}

}  // namespace kbench
