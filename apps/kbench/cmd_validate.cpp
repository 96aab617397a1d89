// `kbench validate SUITE.yaml`: one line per problem (imports, runs, deterministic, peak memory,
// Inductor, depends on its input, not passed by zeros or a constant), a summary, exit 1 when
// any problem fails. Each problem runs in its own sandboxed worker.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "exec/interrupt.hpp"
#include "run/problem_validator.hpp"

namespace kbench::cli {

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ProblemValidationOptions>();
  auto no_inductor = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "validate", "Check each problem of a suite: imports, runs, deterministic, peak memory, "
                  "compiles under Inductor, depends on its input, not passed by zeros or a constant");
  cmd->add_option("suite", options->suite_file, "Suite YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--device", options->device, "auto (GPU if present), cpu, cuda or cuda:N")
      ->default_val("auto");
  cmd->add_flag("--no-inductor", *no_inductor, "Skip the Inductor check (it compiles; slow on the CPU)");
  cmd->add_option("--work-dir", options->work_dir, "Folder for the workers' files (default: a temp dir, removed)");
  add_selection_options(cmd, options->selection);
  cmd->callback([options, no_inductor] {
    options->inductor = !*no_inductor;
    options->log = [](const std::string& line) {
      std::fputs((line + "\n").c_str(), stdout);
      std::fflush(stdout);
    };
    install_interrupt_handlers();
    const auto results = validate_suite(*options);
    std::size_t failed = 0, degenerate = 0;
    for (const auto& v : results) {
      failed += !v.ok;
      degenerate += v.known_degenerate;
    }
    std::printf("\n%zu problem%s: %zu ok, %zu failed%s\n", results.size(), results.size() == 1 ? "" : "s",
                results.size() - failed, failed,
                degenerate ? fmt::format(" ({} ok only because the suite marks them degenerate)", degenerate).c_str()
                           : "");
    if (failed)
      throw Error(kExitCheckFailed, fmt::format("{} of {} problems failed validation (docs/cli.md#kbench-validate)",
                                                failed, results.size()));
  });
}

}  // namespace kbench::cli
