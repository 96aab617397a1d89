#include "run/suite_runner.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <future>

#include "core/error.hpp"
#include "core/text.hpp"
#include "exec/controller.hpp"
#include "report/output_paths.hpp"
#include "report/results_json.hpp"
#include "run/journal.hpp"
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

// Every file the run reads, for the output-path guard: the suite, every problem file (of all
// shards) and every candidate file planned.
std::vector<NamedPath> run_inputs(const Suite& suite, const std::vector<Job>& jobs) {
  std::vector<NamedPath> inputs = {{"the suite", suite.file}};
  for (const auto& problem : suite.problems)
    inputs.push_back({fmt::format("the problem file of '{}'", problem.id), problem.file});
  for (const auto& job : jobs)
    inputs.push_back({fmt::format("a candidate file of '{}'", job.problem_id), job.candidate_file});
  return inputs;
}

std::string output_flag(const std::string& format) { return format == "json" ? "-o" : "--" + format; }

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
  const std::vector<std::string> devices = resolve_devices(options.device);
  // One device is named as such; several CUDA devices (jobs spread over them) as "cuda".
  const std::string device = devices.size() == 1 ? devices.front() : "cuda";
  std::vector<NamedPath> inputs = run_inputs(suite, {});
  if (options.shard) {
    auto& problems = suite.problems;
    problems.erase(std::remove_if(problems.begin(), problems.end(),
                                  [&](const auto& p) { return !in_shard(p.id, *options.shard); }),
                   problems.end());
  }
  const std::vector<Job> jobs = plan_jobs(suite, devices.front());

  std::optional<std::filesystem::path> journal_file = options.journal;
  if (!journal_file && options.results_file && *options.results_file != "-")
    journal_file = default_journal_path(*options.results_file);
  if (options.resume && !journal_file)
    throw InputError("--resume needs a journal: give the results file (-o FILE) or --journal FILE "
                     "of the interrupted run");
  // No output may be an input or another output, or a directory: checked before anything is
  // written (docs/reports.md).
  for (const auto& input : run_inputs(suite, jobs)) inputs.push_back(input);
  std::vector<NamedPath> output_paths;
  for (const auto& o : outputs) output_paths.push_back({output_flag(o.format), o.path});
  if (journal_file) output_paths.push_back({"--journal", *journal_file});
  check_output_paths(output_paths, inputs);
  if (options.work_dir) check_work_dir(*options.work_dir);
  const ReporterSet reporters(outputs);  // checks every output path can be written

  RunReport report;
  report.suite_name = suite.name;
  report.suite_file = suite.file;
  report.device = device;
  report.started_at = utc_now_iso8601();
  report.planned_jobs = jobs.size();

  // Results by plan index: reports list them in plan order whatever order they finish in.
  std::vector<std::optional<JobResult>> by_index(jobs.size());
  std::vector<bool> skip(jobs.size(), false);
  std::optional<Journal> journal;
  bool replaced_journal = false;
  if (journal_file) {
    const auto keys = job_keys(jobs);
    JournalHeader header{suite.file.string(), device, plan_fingerprint(device, keys), jobs.size(),
                         report.started_at};
    if (options.resume) {
      std::vector<JournalEntry> done;
      journal.emplace(Journal::resume(*journal_file, header, jobs, keys, done, report.started_at));
      for (auto& entry : done) {
        skip[entry.index] = true;
        by_index[entry.index] = std::move(entry.result);
      }
    } else {
      replaced_journal = std::filesystem::exists(*journal_file);
      journal.emplace(*journal_file, header, keys);
    }
  }
  auto collect = [&] {
    report.results.clear();
    for (const auto& r : by_index)
      if (r) report.results.push_back(*r);
  };
  collect();
  const std::size_t already_done = report.results.size();

  const bool temporary = !options.work_dir;
  const auto work_dir = temporary ? make_temp_dir() : *options.work_dir;
  std::error_code work_dir_error;
  std::filesystem::create_directories(work_dir, work_dir_error);
  if (work_dir_error)
    throw InputError(fmt::format("--work-dir {}: cannot be created: {}", work_dir.string(),
                                 work_dir_error.message()));
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  const std::filesystem::path lock_dir =
      runtime_dir && std::filesystem::is_directory(runtime_dir) ? runtime_dir : "/tmp";
  ControllerOptions controller;
  controller.work_dir = work_dir;
  controller.slots = plan_slots(devices, options.jobs, options.workers_per_gpu.value_or(2), lock_dir);
  controller.skip = skip;
  const bool prestart = options.prestart ? *options.prestart == "on" : device_kind(device) == "cuda";
  controller.prestart = prestart ? 2 : 0;

  log(fmt::format("kbench: suite '{}': {} problems, {} evaluations on {} ({} worker slot{})",
                  suite.name, suite.problems.size(), jobs.size(), device, controller.slots.size(),
                  controller.slots.size() == 1 ? "" : "s"));
  if (already_done)
    log(fmt::format("kbench: resuming from {}: {} of {} evaluations already done",
                    journal_file->string(), already_done, jobs.size()));
  else if (journal)
    log(fmt::format("kbench: journal {}{}", journal_file->string(),
                    replaced_journal ? " (started afresh; use --resume to continue a run)" : ""));
  // The probe (its own Python start, about 4 s) runs beside the first jobs instead of before
  // them. Every result waits for it, so nothing is recorded from an environment that turns out
  // unusable: its EnvironmentError ends the run before the first result is kept. Declared after
  // the locals it uses: leaving this scope early waits for it (std::async's shared state).
  report.environment = nlohmann::json::object();  // filled in by the probe below
  reporters.write(report);  // a results file exists from the start, whatever happens next
  std::shared_future<nlohmann::json> probe = std::async(std::launch::async, [&] {
    return probe_environment(devices.front(), work_dir);
  });
  bool environment_known = false;
  auto await_environment = [&] {
    if (environment_known) return;
    report.environment = probe.get();
    environment_known = true;
    log("kbench: " + environment_line(report.environment, device));
    reporters.write(report);
  };

  ProgressTracker tracker(jobs.size(), already_done);
  auto show_progress = [&] {
    if (options.progress) options.progress(tracker);
  };
  controller.on_start = [&](std::size_t index, const Job& job, int) {
    tracker.started(index, job.problem_id + "/" + job.candidate);
    show_progress();
  };
  controller.on_result = [&](std::size_t index, const JobResult& result) {
    await_environment();
    // The journal first, fsynced: a crash after this line loses no finished job.
    if (journal) journal->append(index, result);
    by_index[index] = result;
    collect();
    reporters.write(report);
    tracker.finished(index, !is_correct(result.status));
    log(progress_line(result, tracker.done(), jobs.size()));
    show_progress();
  };
  run_jobs(jobs, controller);
  await_environment();  // no job finished (all resumed, or interrupted early)
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
