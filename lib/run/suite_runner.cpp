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
#include "exec/interrupt.hpp"
#include "report/results_json.hpp"
#include "run/journal.hpp"
#include "run/work_dir.hpp"
#include "report/terminal_table.hpp"
#include "suite/suite.hpp"

namespace kbench {
namespace {

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
// The suite's `generate:` block with the CLI's overrides, validated; nullopt: candidates are files.
std::optional<GenerateSettings> resolve_generation(const SuiteRunOptions& options, const Suite& suite) {
  const auto& o = options.generation;
  std::optional<GenerateSettings> g = suite.generate;
  if (!g && o.base_url) g.emplace();
  if (!g) {
    if (o.model || o.samples || o.turns || o.backend || o.api_key_env || o.concurrency || o.prices_file)
      throw InputError("--model, --samples, --turns, --backend, --api-key-env, --concurrency and --prices "
                       "need a model endpoint: add a `generate:` block to the suite or pass --base-url "
                       "(docs/endpoints.md)");
    return std::nullopt;
  }
  if (o.base_url) g->base_url = *o.base_url;
  if (o.model) g->model = *o.model;
  if (o.api_key_env) {
    g->api_key_env = *o.api_key_env;
    g->api_key_env_given = true;
  }
  if (o.samples) g->samples = *o.samples;
  if (o.turns) g->turns = *o.turns;
  if (o.concurrency) g->concurrency = *o.concurrency;
  if (o.backend) {
    const auto& known = generate_backends();
    if (std::find(known.begin(), known.end(), *o.backend) == known.end())
      throw InputError(fmt::format("--backend '{}' is not one of {}", *o.backend, join(known, ", ")));
    g->backend = *o.backend;
  }
  const std::string where = suite.generate ? suite.file.string() + ": generate" : "--base-url";
  if (g->base_url.empty())
    throw InputError(fmt::format("{}: no base_url: set `base_url:` or pass --base-url URL (or KBENCH_BASE_URL), "
                                 "the endpoint's /v1 root",
                                 where));
  if (g->base_url.rfind("http://", 0) != 0 && g->base_url.rfind("https://", 0) != 0)
    throw InputError(fmt::format("base_url '{}' must start with http:// or https://", g->base_url));
  if (g->model.empty())
    throw InputError(fmt::format("{}: no model: set `model:` or pass --model NAME", where));
  if (g->samples < 1 || g->concurrency < 1)
    throw InputError("--samples and --concurrency must be >= 1");
  // The agent loop (feedback after each evaluation) needs jobs added to a running evaluation;
  // until that lands, one turn.
  if (g->turns != 1)
    throw InputError(fmt::format("turns = {}: the multi-turn agent loop is not yet supported; use --turns 1",
                                 g->turns));
  if (!options.candidates.empty())
    throw InputError("--candidates and a model endpoint exclude each other: candidates come from one or "
                     "the other");
  return g;
}

// The folder a run's generated candidates go to; never one that holds the suite or a problem.
std::filesystem::path generation_dir(const SuiteRunOptions& options, const Suite& suite,
                                     const std::filesystem::path& work_dir) {
  std::filesystem::path dir;
  if (options.generation.output_dir) dir = *options.generation.output_dir;
  else if (options.results_file && *options.results_file != "-") dir = options.results_file->string() + ".generated";
  else dir = work_dir / "generated";
  dir = std::filesystem::absolute(dir).lexically_normal();
  auto inside = [&](const std::filesystem::path& file) {
    const auto relative = file.lexically_normal().lexically_relative(dir);
    return !relative.empty() && *relative.begin() != "..";
  };
  if (inside(suite.file))
    throw InputError(fmt::format("{}: the generated candidates would be written where the suite is; "
                                 "choose another results path", dir.string()));
  for (const auto& problem : suite.problems)
    if (inside(problem.file))
      throw InputError(fmt::format("{}: the generated candidates would be written where problem file {} is; "
                                   "choose another results path", dir.string(), problem.file.string()));
  return dir;
}

// Removes a temporary work dir when the run leaves early with an error.
struct TempDirGuard {
  std::filesystem::path dir;
  bool armed = false;
  ~TempDirGuard() {
    if (!armed) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

SuitePlan plan_suite(const SuiteRunOptions& options) {
  SuitePlan plan;
  plan.suite = load_suite(options.suite_file);
  apply_overrides(options, plan.suite);
  plan.devices = resolve_devices(options.device);
  select_problems(options.selection, options.shard, plan.suite.problems);
  plan.jobs = plan_jobs(plan.suite, plan.devices.front());  // file candidates (no generation)
  return plan;
}

RunReport run_suite(const SuiteRunOptions& options) {
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  // Everything that can be wrong with the input is found before the first worker starts.
  Suite suite = load_suite(options.suite_file);
  apply_overrides(options, suite);
  std::vector<OutputSpec> outputs = options.outputs;
  if (options.results_file) outputs.insert(outputs.begin(), {"json", options.results_file->string()});
  const std::vector<Device> devices = resolve_devices(options.device);
  const Device device = run_device(devices);
  std::vector<NamedPath> inputs = run_inputs(suite, {});
  select_problems(options.selection, options.shard, suite.problems);  // run/selection.hpp
  if (options.resume && !options.journal && !(options.results_file && *options.results_file != "-"))
    throw InputError("--resume needs a journal: give the results file (-o FILE) or --journal FILE "
                     "of the interrupted run");
  const auto generation = resolve_generation(options, suite);
  if (generation && !options.generator)
    throw EnvironmentError("this kbench was built without model-endpoint generation: libcurl or SQLite3 "
                           "development files were missing when CMake ran (scripts/setup.sh installs "
                           "libcurl4-openssl-dev and libsqlite3-dev; then reconfigure)");

  // File candidates are planned now; generated ones once generation has written them.
  std::vector<Job> jobs;
  if (!generation) jobs = plan_jobs(suite, devices.front());
  std::optional<std::filesystem::path> journal_file = options.journal;
  if (!journal_file && options.results_file && *options.results_file != "-")
    journal_file = default_journal_path(*options.results_file);
  if (options.resume && !journal_file)
    throw InputError("--resume needs a journal: give the results file (-o FILE) or --journal FILE "
                     "of the interrupted run");
  // No output may be an input or another output, or a directory: checked before anything is
  // written (docs/reports.md).
  auto check_outputs = [&](const std::vector<Job>& planned) {
    std::vector<NamedPath> all_inputs = inputs;
    for (const auto& input : run_inputs(suite, planned)) all_inputs.push_back(input);
    std::vector<NamedPath> output_paths;
    for (const auto& o : outputs) output_paths.push_back({output_flag(o.format), o.path});
    if (journal_file) output_paths.push_back({"--journal", *journal_file});
    check_output_paths(output_paths, all_inputs);
  };
  check_outputs(jobs);
  if (options.work_dir) check_work_dir(*options.work_dir);
  const ReporterSet reporters(outputs);  // checks every output path can be written
  const bool temporary = !options.work_dir;
  const auto work_dir = temporary ? make_temp_work_dir("kbench-run") : *options.work_dir;
  std::error_code work_dir_error;
  std::filesystem::create_directories(work_dir, work_dir_error);
  if (work_dir_error)
    throw InputError(fmt::format("--work-dir {}: cannot be created: {}", work_dir.string(),
                                 work_dir_error.message()));
  TempDirGuard temp_guard{work_dir, temporary && !options.keep_work_dir};

  // Generation comes first: the jobs are the files it writes. The prompts state the target's
  // facts, so the environment probe runs now rather than beside the first jobs.
  std::optional<nlohmann::json> probed;
  std::vector<GeneratedCandidate> generated;
  bool keep_work_dir = options.keep_work_dir;
  if (generation) {
    const auto dir = generation_dir(options, suite, work_dir);
    if (dir.string().rfind(work_dir.string(), 0) == 0) keep_work_dir = true;  // they live there
    probed = probe_environment(devices.front(), work_dir);
    GenerationRequest request;
    request.settings = *generation;
    request.output_dir = dir;
    if (!options.generation.no_cache)
      request.cache_file = options.generation.cache_file.value_or(default_generation_cache_path());
    request.prices_file = options.generation.prices_file;
    request.environment = *probed;
    request.device = devices.front();
    request.log = options.log;
    request.stopping = interrupt_requested;
    request.cancelled = kill_requested;
    request.sleep = options.generation_sleep;
    generated = options.generator(suite, request);
    log(fmt::format("kbench: generated candidates and replies in {}", dir.string()));
  }
  if (generation) {
    jobs = plan_generated_jobs(suite, devices.front(), generated);
    check_outputs(jobs);  // the generated candidates are inputs too
  }


  RunReport report;
  report.suite_name = suite.name;
  report.suite_file = suite.file;
  report.device = device;
  report.run = current_run_info();
  report.planned_jobs = jobs.size();
  for (const auto& p : suite.problems)
    if (p.degenerate_reason) report.degenerate_problems[p.id] = *p.degenerate_reason;
  if (generation)
    report.generation = GenerationRun{generation->base_url, generation->model, generation->backend,
                                      generation->samples, generation->turns};

  // Results by plan index: reports list them in plan order whatever order they finish in.
  std::vector<std::optional<JobResult>> by_index(jobs.size());
  std::vector<bool> skip(jobs.size(), false);
  std::optional<Journal> journal;
  bool replaced_journal = false;
  if (journal_file) {
    const auto keys = job_keys(jobs);
    JournalHeader header{suite.file.string(), device, plan_fingerprint(device, keys), jobs.size(),
                         report.run.started_at};
    if (options.resume) {
      std::vector<JournalEntry> done;
      journal.emplace(Journal::resume(*journal_file, header, jobs, keys, done, report.run.started_at));
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
  const std::size_t already_done = std::size_t(
      std::count_if(by_index.begin(), by_index.end(), [](const auto& r) { return r.has_value(); }));
  // A reply without code is a result without a worker (never journaled: the cache replays it).
  std::size_t no_code = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!jobs[i].origin || (i < generated.size() && generated[i].source_file)) continue;
    JobResult result;
    result.job = jobs[i];
    result.status = Status::no_code;
    result.message = fmt::format("the reply held no code ({}); kept in {}", jobs[i].origin->extraction,
                                 jobs[i].origin->reply_file.string());
    by_index[i] = std::move(result);
    skip[i] = true;
    ++no_code;
  }
  collect();
  const std::filesystem::path lock_dir = gpu_lock_dir();
  ControllerOptions controller;
  controller.work_dir = work_dir;
  controller.slots = plan_slots(devices, options.jobs, options.workers_per_gpu.value_or(2), lock_dir);
  controller.skip = skip;
  const bool prestart = options.prestart ? *options.prestart == "on" : device.is_cuda();
  controller.prestart = prestart ? 2 : 0;

  log(fmt::format("kbench: suite '{}': {} problems, {} evaluations on {} ({} worker slot{})",
                  suite.name, suite.problems.size(), jobs.size(), to_string(device), controller.slots.size(),
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
    return probed ? *probed : probe_environment(devices.front(), work_dir);
  });
  bool environment_known = false;
  auto await_environment = [&] {
    if (environment_known) return;
    report.environment = probe.get();
    environment_known = true;
    log("kbench: " + environment_line(report.environment, device));
    reporters.write(report);
  };

  ProgressTracker tracker(jobs.size(), already_done + no_code);
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
  report.run.finished_at = utc_now_iso8601();
  reporters.finish(report);
  if (temporary && !keep_work_dir) {
    temp_guard.armed = false;
    std::error_code ignored;
    std::filesystem::remove_all(work_dir, ignored);
  } else {
    temp_guard.armed = false;
    log(fmt::format("kbench: worker logs kept in {}", work_dir.string()));
  }
  return report;
}

}  // namespace kbench
