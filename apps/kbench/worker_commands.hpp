#pragma once
// The subcommands that need embedded Python and LibTorch live in a second executable,
// kbench-worker, next to kbench: loading LibTorch costs about 480 MB and a second of start-up,
// which `kbench --version`, `--help`, `list`, `compare` or a Slurm array's controller should not
// pay. kbench passes these subcommands on to kbench-worker unchanged (exec, same pid); the
// controller starts kbench-worker directly (worker_executable(), lib/exec/worker_process.hpp).
#include <CLI/CLI.hpp>

#include <string_view>
#include <vector>

namespace kbench::cli {

struct WorkerCommand {
  const char* name;
  const char* description;
  bool listed;  // shown in `kbench --help`
};

// `worker` (internal) and `check-candidate`.
const std::vector<WorkerCommand>& worker_commands();
// One of them by name (their descriptions are written once, here).
const WorkerCommand& worker_command(std::string_view name);

// In kbench: replaces this process with kbench-worker when argv[1] is one of worker_commands();
// returns otherwise. Throws Error(kExitEnvironment) when kbench-worker is missing.
void exec_worker_command_if_named(int argc, char** argv);

// In kbench: the worker commands as entries of `kbench --help` (they never parse here).
void list_worker_commands(CLI::App& app);

}  // namespace kbench::cli
