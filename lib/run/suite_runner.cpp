#include "run/suite_runner.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"
#include "exec/controller.hpp"
#include "report/results_json.hpp"
#include "report/terminal_table.hpp"
#include "suite/suite.hpp"

namespace kbench {
namespace {

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kbench-run-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw EnvironmentError("cannot create a temporary directory");
  return pattern;
}

// CLI overrides, validated like the suite's own values.
void apply_overrides(const SuiteRunOptions& options, Suite& suite) {
  std::optional<TimingMode> mode;
  if (options.timing_mode) {
    mode = timing_mode_from_string(*options.timing_mode);
    if (!mode)
      throw InputError(fmt::format("--timing-mode '{}' is not one of {}", *options.timing_mode,
                                   join(timing_mode_names(), ", ")));
  }
  std::optional<CheckLevel> checks;
  if (options.checks) {
    checks = check_level_from_string(*options.checks);
    if (!checks)
      throw InputError(fmt::format("--checks '{}' is not one of {}", *options.checks,
                                   join(check_level_names(), ", ")));
  }
  const auto& known = baseline_names();
  for (const auto& b : options.baselines)
    if (std::find(known.begin(), known.end(), b) == known.end())
      throw InputError(fmt::format("--baselines: unknown baseline '{}'; use {}", b, join(known, ", ")));
  for (auto& problem : suite.problems) {
    if (!options.candidates.empty()) {
      problem.candidate_patterns.clear();
      // Patterns are expanded relative to the suite file; make CLI ones absolute from the cwd.
      for (const auto& p : options.candidates)
        problem.candidate_patterns.push_back(std::filesystem::absolute(p).string());
    }
    auto& s = problem.settings;
    if (!options.baselines.empty()) s.baselines = options.baselines;
    if (mode) s.timing.mode = *mode;
    if (options.target_ci) s.timing.target_ci = *options.target_ci;
    if (options.max_time_s) s.timing.max_time_s = *options.max_time_s;
    if (options.timeout_s) s.timeout_s = *options.timeout_s;
    if (checks) s.checks = *checks;
  }
}

}  // namespace

RunReport run_suite(const SuiteRunOptions& options) {
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  // Everything that can be wrong with the input is found before the first worker starts.
  Suite suite = load_suite(options.suite_file);
  apply_overrides(options, suite);
  std::vector<OutputSpec> outputs = options.outputs;
  if (options.results_file) outputs.insert(outputs.begin(), {"json", options.results_file->string()});
  const ReporterSet reporters(outputs);  // checks every output path now
  const std::string device = resolve_device(options.device);
  if (options.shard) {
    auto& problems = suite.problems;
    problems.erase(std::remove_if(problems.begin(), problems.end(),
                                  [&](const auto& p) { return !in_shard(p.id, *options.shard); }),
                   problems.end());
  }
  const std::vector<Job> jobs = plan_jobs(suite, device);

  const bool temporary = !options.work_dir;
  const auto work_dir = temporary ? make_temp_dir() : *options.work_dir;
  std::filesystem::create_directories(work_dir);

  RunReport report;
  report.suite_name = suite.name;
  report.suite_file = suite.file;
  report.device = device;
  report.started_at = utc_now_iso8601();
  report.planned_jobs = jobs.size();
  log(fmt::format("kbench: suite '{}': {} problems, {} evaluations on {}", suite.name,
                  suite.problems.size(), jobs.size(), device));
  report.environment = probe_environment(device, work_dir);
  log(fmt::format("kbench: {} | torch {} | triton {} | CUDA {} | driver {}",
                  report.environment.value("device_name", "?"),
                  report.environment.value("torch", "?"), report.environment.value("triton", "?"),
                  report.environment.value("cuda", "-"), report.environment.value("driver", "-")));
  reporters.write(report);

  ControllerOptions controller;
  controller.work_dir = work_dir;
  controller.on_result = [&](const JobResult& result, std::size_t done, std::size_t total) {
    report.results.push_back(result);
    reporters.write(report);
    log(progress_line(result, done, total));
  };
  run_jobs(jobs, controller);
  reporters.finish(report);
  if (temporary && !options.keep_work_dir) {
    std::error_code ignored;
    std::filesystem::remove_all(work_dir, ignored);
  } else {
    log(fmt::format("kbench: worker logs kept in {}", work_dir.string()));
  }
  return report;
}

}  // namespace kbench
