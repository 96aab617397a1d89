// `kbench merge A.json B.json ... -o all.json`: join the results files of `kbench run --shard`.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "report/output_paths.hpp"
#include "report/report_merge.hpp"
#include "report/results_json.hpp"
#include "report/results_reader.hpp"
#include "report/terminal_table.hpp"
#include "table_stream.hpp"

namespace kbench::cli {

void add_merge_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto ignore_env = std::make_shared<bool>(false);
  auto require_complete = std::make_shared<bool>(false);
  auto allow_suite_mismatch = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("merge", "Join results files (e.g. of --shard runs) into one, "
                                          "recomputing the summary");
  cmd->add_option("results", *files, "Results JSON files")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", *output, "Merged results JSON, or - for stdout")
      ->type_name("FILE|-")
      ->required();
  cmd->add_flag("--ignore-env", *ignore_env,
                "Merge even when environment.device_name or environment.torch differ");
  cmd->add_flag("--require-complete", *require_complete,
                "Refuse (exit 2) an input whose run did not finish, e.g. a killed shard");
  cmd->add_flag("--allow-suite-mismatch", *allow_suite_mismatch,
                "Merge results of differently named suites");
  cmd->callback([files, output, ignore_env, require_complete, allow_suite_mismatch] {
    const bool to_stdout = *output == "-";
    std::vector<NamedPath> inputs;
    for (const auto& f : *files) inputs.push_back({"an input", f});
    check_output_paths({{"-o", *output}}, inputs);
    if (!to_stdout) check_writable(*output);
    std::vector<std::pair<std::string, RunReport>> reports;
    for (const auto& f : *files) {
      reports.emplace_back(f, read_results_file(f));
      const RunReport& r = reports.back().second;
      if (*require_complete && r.results.size() != r.planned_jobs)
        throw InputError(fmt::format("{}: incomplete ({} of {} evaluations finished); finish it first "
                                     "(kbench run ... --resume) or merge without --require-complete",
                                     f, r.results.size(), r.planned_jobs));
    }
    const RunReport merged = merge_reports(reports, *ignore_env, *allow_suite_mismatch);
    if (to_stdout) {
      std::fputs((results_json(merged).dump(2) + "\n").c_str(), stdout);
      std::fputs((summary_line(merged) + "\n").c_str(), table_stream({*output}));
      return;
    }
    write_results_json(merged, *output);
    std::fputs((summary_line(merged) + "\n").c_str(), stdout);
    std::fprintf(stdout, "merged %zu results from %zu files%s: %s\n", merged.results.size(),
                 files->size(), merged.results.size() == merged.planned_jobs ? "" : " (incomplete)",
                 output->c_str());
  });
}

}  // namespace kbench::cli
