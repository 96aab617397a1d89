// `kbench import kernelbench DIR -o suite.yaml`: a suite over an unmodified KernelBench checkout.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "suite/kernelbench_import.hpp"

namespace kbench::cli {

void add_import_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("import", "Write a suite YAML over another benchmark's files");
  cmd->require_subcommand(1);
  auto options = std::make_shared<KernelBenchImportOptions>();
  auto* kb = cmd->add_subcommand(
      "kernelbench", "A suite over a KernelBench checkout (KernelBench/levelN/<number>_<Name>.py), "
                     "with KernelBench's dtype and tolerances; the checkout is never written");
  kb->add_option("dir", options->checkout, "KernelBench checkout, or its KernelBench/ folder")
      ->required();
  kb->add_option("-o,--output", options->output,
                 "Suite YAML to write (outside the checkout; problem paths are written relative "
                 "to it)")
      ->type_name("FILE")
      ->required();
  kb->add_option("--levels", options->levels, "Levels to import (default 1,2,3)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->type_name("N,N,...");
  kb->add_option("--candidates", options->candidate_patterns,
                 "Candidate file pattern per problem, relative to the current directory; "
                 "{level} {number} {name} {id} expand (default: candidates/{id}/*.py next to the "
                 "suite); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("PATTERN");
  kb->add_option("--precision", options->precision,
                 "KernelBench precision: fp32 (default; atol=rtol=1e-4), fp16 or bf16 (1e-2)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  kb->add_flag("--force", options->force, "Replace the output file if it exists");
  kb->callback([options] {
    const auto problems = import_kernelbench(*options);
    std::size_t per_level[64] = {};
    for (const auto& p : problems) per_level[std::min(p.level, 63)]++;
    std::string counts;
    for (int level : options->levels)
      counts += fmt::format("{}level {}: {}", counts.empty() ? "" : ", ", level,
                            per_level[std::min(level, 63)]);
    std::printf("imported %zu KernelBench problems (%s) into %s\n", problems.size(), counts.c_str(),
                options->output.c_str());
  });
}

}  // namespace kbench::cli
