#pragma once
// Entry points of the internal `kbench worker` subcommand. Both read the per-job key from
// `key_fd` (and close it) before any Python runs, write exactly one frame authenticated with it
// to `result_fd`, and then end the process without Python finalisation (which can hang or crash
// after arbitrary candidate code); they do not return.
#include <filesystem>
#include <string>

#include "device/device.hpp"

namespace kbench {

[[noreturn]] void worker_evaluate(const std::filesystem::path& job_file, int result_fd,
                                  int key_fd);
// `kbench validate`: the problem of `job_file` checked on its device (worker/problem_validation.hpp).
[[noreturn]] void worker_validate(const std::filesystem::path& job_file, bool inductor, int result_fd,
                                  int key_fd);
[[noreturn]] void worker_probe(const Device& device, int result_fd, int key_fd);

}  // namespace kbench
