#include "run/work_dir.hpp"

#include <stdlib.h>

#include <cstdlib>

#include "core/error.hpp"

namespace kbench {

std::filesystem::path make_temp_work_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw EnvironmentError("cannot create a temporary directory");
  return pattern;
}

std::filesystem::path gpu_lock_dir() {
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  return runtime_dir && std::filesystem::is_directory(runtime_dir) ? runtime_dir : "/tmp";
}

}  // namespace kbench
