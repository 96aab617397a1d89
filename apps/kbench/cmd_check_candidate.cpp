// `kbench check-candidate FILE...`: the static checks of docs/integrity-static.md on candidate
// files, without running them. It calls the same analyze_candidate_source() as the worker.
// Python starts in this process, not in a worker child: the analysis only parses the file
// (ast), so no candidate code runs and there is no fault to isolate.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "worker_commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "worker/python_runtime.hpp"
#include "integrity/static_analysis.hpp"

namespace kbench::cli {
namespace {

std::string joined(const std::vector<std::string>& names) {
  return names.empty() ? "none" : join(names, ", ");
}

// Prints one file's findings and a summary line; true when the file passes.
bool report_file(const std::string& file, const StaticAnalysis& a, bool require_kernel) {
  if (!a.syntax_error.empty()) {
    std::printf("%s: does not parse: %s\n%s: FAILED\n", file.c_str(), a.syntax_error.c_str(),
                file.c_str());
    return false;
  }
  for (const auto& v : a.violations)
    std::printf("%s:%d: %s: %s\n", file.c_str(), v.line, v.check.c_str(), v.evidence.c_str());
  std::vector<std::string> unreachable;
  for (const auto& k : a.defined_kernels)
    if (std::find(a.reachable_kernels.begin(), a.reachable_kernels.end(), k) == a.reachable_kernels.end())
      unreachable.push_back(k);
  const bool no_kernel = a.reachable_kernels.empty();
  std::string kernels = "kernels reachable from ModelNew.forward: " + joined(a.reachable_kernels);
  if (!unreachable.empty()) kernels += "; defined but unreachable: " + joined(unreachable);
  const bool ok = a.violations.empty() && !(require_kernel && no_kernel);
  std::string verdict = ok ? "ok" : "FAILED";
  if (!a.violations.empty()) verdict += fmt::format(" ({} violation{})", a.violations.size(),
                                                   a.violations.size() == 1 ? "" : "s");
  if (require_kernel && no_kernel) verdict += " (no custom kernel reachable)";
  std::printf("%s: %s; %s\n", file.c_str(), verdict.c_str(), kernels.c_str());
  return ok;
}

}  // namespace

void add_check_candidate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto require_kernel = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("check-candidate", worker_command("check-candidate").description);
  cmd->add_option("files", *files, "Candidate .py files")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--require-kernel", *require_kernel,
                "Also fail a file when no @triton.jit or load_inline kernel is reachable from "
                "ModelNew.forward");
  cmd->callback([files, require_kernel] {
    start_python();
    std::size_t failed = 0;
    for (const auto& file : *files)
      failed += report_file(file, analyze_candidate_source(file), *require_kernel) ? 0 : 1;
    std::fflush(stdout);  // the findings before main's error line on stderr
    if (failed) {
      throw Error(kExitCheckFailed,
                  fmt::format("{} of {} candidate file{} failed the static checks "
                              "(rules: docs/integrity-static.md)",
                              failed, files->size(), files->size() == 1 ? "" : "s"));
    }
  });
}

}  // namespace kbench::cli
