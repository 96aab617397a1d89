// `kbench run SUITE.yaml`: evaluate every problem x candidate of a suite.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "core/error.hpp"
#include "exec/interrupt.hpp"
#include "report/terminal_table.hpp"
#include "run/suite_runner.hpp"

namespace kbench::cli {

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<SuiteRunOptions>();
  auto quiet = std::make_shared<bool>(false);
  std::string suite_file, output, work_dir;
  auto* run = app.add_subcommand("run", "Evaluate every problem x candidate of a suite YAML");
  run->add_option("suite", options->suite_file, "Suite YAML file (see docs/suite-format.md)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("-o,--output", options->results_file,
                  "Write results JSON here (rewritten after every job)")
      ->group("Output");
  run->add_flag("-q,--quiet", *quiet, "Print only the final table and summary")->group("Output");
  run->add_option("--device", options->device, "auto (GPU if present), cpu, cuda or cuda:N")
      ->default_val("auto")
      ->group("Execution");
  run->add_option("--timeout", options->timeout_s,
                  "Seconds per evaluation before its worker is killed (overrides the suite)")
      ->check(CLI::PositiveNumber)
      ->group("Execution");
  run->add_option("--candidates", options->candidates,
                  "Candidate file pattern(s) for every problem, replacing the suite's ({id} expands)")
      ->group("Selection");
  run->add_option("--baselines", options->baselines, "Baselines to time: eager, inductor")
      ->delimiter(',')
      ->group("Selection");
  run->add_option("--timing-mode", options->timing_mode,
                  "cold (L2 flushed, default), hot, graph, or kernelbench (comparison protocol)")
      ->group("Timing");
  run->add_option("--target-ci", options->target_ci,
                  "Stop when each median's 95% CI half-width is within this fraction (0.005)")
      ->check(CLI::Range(1e-5, 0.5))
      ->group("Timing");
  run->add_option("--max-time", options->max_time_s, "Cap in seconds on one job's timing protocol")
      ->check(CLI::PositiveNumber)
      ->group("Timing");
  run->add_option("--work-dir", options->work_dir,
                  "Folder for per-job worker files and logs (default: a temp dir, removed)")
      ->group("Execution");
  run->add_flag("--keep-work-dir", options->keep_work_dir, "Keep worker logs after the run")
      ->group("Execution");
  run->callback([options, quiet] {
    if (!*quiet) options->log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    install_interrupt_handlers();
    const RunReport report = run_suite(*options);
    std::fputs(("\n" + terminal_table(report) + "\n" + summary_line(report) + "\n").c_str(), stdout);
    if (options->results_file) std::fprintf(stdout, "results: %s\n", options->results_file->c_str());
    if (report.results.size() < report.planned_jobs) {
      throw Error(kExitInterrupted,
                  fmt::format("interrupted after {} of {} evaluations; what finished is reported above",
                              report.results.size(), report.planned_jobs));
    }
  });
}

}  // namespace kbench::cli
