// kbench: the command-line entry. Subcommands live in cmd_*.cpp; errors are printed once
// (cli_main.cpp). The ones that embed Python and LibTorch run in kbench-worker
// (worker_commands.hpp), so this binary starts without loading LibTorch.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_main.hpp"
#include "commands.hpp"
#include "shell_completion.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "model/run_info.hpp"
#include "worker_commands.hpp"

namespace {

// CLI11 says only "A subcommand is required" for `kbench frobnicate`: name the word and the
// subcommands there are.
void check_subcommand_name(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); }))
    names.push_back(sub->get_name());
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() == argv[1]) return;
  const auto hint = kbench::closest_match(argv[1], names);
  throw kbench::InputError(fmt::format("unknown subcommand '{}'{}; use one of: {} (kbench --help)",
                                       argv[1], hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                       kbench::join(names, ", ")));
}

}  // namespace

int main(int argc, char** argv) {
  kbench::record_command_line(argc, argv);  // results files record it (model/run_info.hpp)
  // The name is fixed so --help and docs/cli.md say `kbench`, not the path it was started by.
  CLI::App app{"kbench: trustworthy correctness and speed evaluation of GPU kernels "
               "(Triton, CUDA, PyTorch) against PyTorch eager and TorchInductor.",
               "kbench"};
  // `kbench 0.1.0 (commit 1a2b3c4)`: the same version as the package, and the build's commit.
  static const std::string version = fmt::format("kbench {} (commit {})", kbench::kVersion, kbench::build_git_commit());
  app.set_version_flag("--version", version);
  app.require_subcommand(1);
  app.footer(kbench::cli::kExitCodesFooter);
  kbench::cli::add_run_command(app);
  kbench::cli::add_compare_command(app);
  kbench::cli::add_merge_command(app);
  kbench::cli::list_worker_commands(app);  // worker (hidden), check-candidate
  kbench::cli::add_import_command(app);
  kbench::cli::add_list_command(app);
  kbench::cli::add_validate_command(app);
  kbench::cli::add_slurm_command(app);
  kbench::cli::add_history_command(app);
  kbench::cli::add_cache_command(app);
  kbench::cli::add_prompt_command(app);
  kbench::cli::add_serve_command(app);
  kbench::cli::add_completion_command(app);  // last: it walks every command added above
  return kbench::cli::run_cli(app, argc, argv, [&] {
    kbench::cli::exec_worker_command_if_named(argc, argv);
    check_subcommand_name(app, argc, argv);
  });
}
