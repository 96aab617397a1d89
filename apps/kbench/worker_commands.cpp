#include "worker_commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "exec/worker_process.hpp"

namespace kbench::cli {

const std::vector<WorkerCommand>& worker_commands() {
  static const std::vector<WorkerCommand> commands = {
      {"worker", "Internal: evaluate one job (started by kbench run)", false},
      {"check-candidate",
       "Check candidate files without running them: forbidden imports and APIs, and the kernels "
       "reachable from ModelNew.forward",
       true},
  };
  return commands;
}

const WorkerCommand& worker_command(std::string_view name) {
  for (const auto& command : worker_commands())
    if (name == command.name) return command;
  throw std::logic_error(fmt::format("no worker command '{}'", name));
}

void exec_worker_command_if_named(int argc, char** argv) {
  if (argc < 2) return;
  bool named = false;
  for (const auto& command : worker_commands()) named |= std::strcmp(argv[1], command.name) == 0;
  if (!named) return;
  const std::string worker = worker_executable().string();
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv(worker.c_str(), args.data());
  throw Error(kExitEnvironment,
              fmt::format("cannot start {} for `kbench {}` ({}); it is built and installed next to "
                          "kbench (rebuild: cmake --build build)",
                          worker, argv[1], std::strerror(errno)));
}

void list_worker_commands(CLI::App& app) {
  for (const auto& command : worker_commands()) {
    auto* sub = app.add_subcommand(command.name, command.description);
    if (!command.listed) sub->group("");  // hidden from --help
  }
}

}  // namespace kbench::cli
