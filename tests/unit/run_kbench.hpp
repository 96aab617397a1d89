#pragma once
// Runs the kbench binary as a user would and captures what it prints.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "test_paths.hpp"

namespace kbench::test {

struct CommandOutput {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line as given; what it prints on stdout and its exit code.
inline CommandOutput run_command(const std::string& command) {
  CommandOutput result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline CommandOutput run_kbench(const std::string& arguments) {
  return run_command(kKbench.string() + " " + arguments + " 2>&1");
}

}  // namespace kbench::test
