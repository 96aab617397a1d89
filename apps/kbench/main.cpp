// kbench: the command-line entry. Subcommands live in cmd_*.cpp; errors are printed here once.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "core/error.hpp"
#include "core/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kbench: trustworthy correctness and speed evaluation of GPU kernels "
               "(Triton, CUDA, PyTorch) against PyTorch eager and TorchInductor."};
  app.set_version_flag("--version", kbench::kVersion);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 done, 1 regression (compare --fail-on-regression) or a failed check-candidate, 2 bad input, 3 environment (Python/torch/GPU) unusable, "
             "4 internal error, 130 interrupted. See docs/cli.md.");
  kbench::cli::add_run_command(app);
  kbench::cli::add_worker_command(app);
  kbench::cli::add_compare_command(app);
  kbench::cli::add_merge_command(app);
  kbench::cli::add_check_command(app);
  kbench::cli::add_prompt_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kbench::kExitBadInput;
  } catch (const kbench::Error& e) {
    std::fprintf(stderr, "kbench: error: %s\n", e.what());
    return e.code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbench: internal error: %s\n", e.what());
    return kbench::kExitInternal;
  }
  return 0;
}
