// kbench-worker: the subcommands that embed Python and LibTorch (apps/kbench/worker_commands.hpp
// says why they are a second executable). Started by the controller for every job, and by
// `kbench worker` / `kbench check-candidate`, which pass their command line on unchanged.
#include <CLI/CLI.hpp>

#include "cli_main.hpp"
#include "commands.hpp"
#include "core/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kbench-worker: the part of kbench that embeds Python and LibTorch", "kbench"};
  app.set_version_flag("--version", kbench::kVersion);
  app.require_subcommand(1);
  app.footer(kbench::cli::kExitCodesFooter);
  kbench::cli::add_worker_command(app);
  kbench::cli::add_check_candidate_command(app);
  return kbench::cli::run_cli(app, argc, argv);
}
