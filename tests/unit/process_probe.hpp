#pragma once
// Whether anything a test started still runs: a process is found by its working directory, which
// for a worker (and whatever it forked) is inside its job dir.
#include <filesystem>
#include <string>
#include <system_error>

namespace kbench::test {

// True while any process has its working directory inside `dir`.
inline bool process_alive_in(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::error_code error;
    const auto cwd = std::filesystem::read_symlink(entry.path() / "cwd", error);
    if (!error && cwd.string().rfind(dir.string(), 0) == 0) return true;
  }
  return false;
}

}  // namespace kbench::test
