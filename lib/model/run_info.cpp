#include "model/run_info.hpp"

#include <chrono>
#include <ctime>
#include <mutex>

#include "core/version.hpp"
#include "git_commit.hpp"  // generated at build time by cmake/write_git_commit.cmake

namespace kbench {
namespace {

std::mutex& command_line_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& recorded_command_line() {
  static std::vector<std::string> argv;
  return argv;
}

}  // namespace

void record_command_line(int argc, const char* const* argv) {
  const std::lock_guard<std::mutex> lock(command_line_mutex());
  recorded_command_line().assign(argv, argv + argc);
}

const char* build_git_commit() { return KBENCH_GIT_COMMIT; }

RunInfo current_run_info() {
  RunInfo run;
  {
    const std::lock_guard<std::mutex> lock(command_line_mutex());
    run.command_line = recorded_command_line();
  }
  run.kbench_version = kVersion;
  run.git_commit = build_git_commit();
  run.started_at = utc_now_iso8601();
  return run;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace kbench
