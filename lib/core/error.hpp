#pragma once
// Errors that end a kbench command. Each carries the documented exit code (docs/cli.md), so
// `main` has one place that prints and exits.
#include <stdexcept>
#include <string>

namespace kbench {

enum ExitCode : int {
  kExitOk = 0,
  kExitRegression = 1,   // `kbench compare --fail-on-regression` found a regression
  kExitCheckFailed = 1,  // `kbench check-candidate`: a file broke the static checks
  kExitBadInput = 2,     // suite/CLI/user input is wrong: fix the input
  kExitEnvironment = 3,  // Python/torch/device missing: fix the machine (scripts/setup.sh)
  kExitInternal = 4,     // a kbench bug
  kExitInterrupted = 130,
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad user input; the message already says where (file:line:col) and what to do.
struct InputError : Error {
  explicit InputError(const std::string& message) : Error(kExitBadInput, message) {}
};

struct EnvironmentError : Error {
  explicit EnvironmentError(const std::string& message) : Error(kExitEnvironment, message) {}
};

}  // namespace kbench
