#include "run/suite_runner.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"
#include "core/text.hpp"
#include "exec/controller.hpp"
#include "report/output_paths.hpp"
#include "exec/interrupt.hpp"
#include "report/results_json.hpp"
#include "run/journal.hpp"
#include "run/agent_loop.hpp"
#include "run/generated_results.hpp"
#include "run/job_planning.hpp"
#include "run/run_session.hpp"
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
  std::optional<TimingPreset> preset;
  if (options.timing_preset) {
    preset = timing_preset_from_string(*options.timing_preset);
    if (!preset)
      throw InputError(fmt::format("--timing-preset '{}' is not one of {}", *options.timing_preset,
                                   join(timing_preset_names(), ", ")));
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
    // A preset fills the keys left unset; keys the suite or the CLI set keep their values.
    if (preset) s.timing.preset = *preset;
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
  if (g->turns < 1) throw InputError(fmt::format("turns = {}: must be >= 1", g->turns));
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

Suite load_run_suite(const SuiteRunOptions& options) {
  Suite suite = load_suite(options.suite_file);
  apply_overrides(options, suite);
  select_problems(options.selection, options.shard, suite.problems);  // run/selection.hpp
  return suite;
}

void apply_scheduling(const SuiteRunOptions& options, const Device& device, SessionSetup& setup) {
  setup.jobs = options.jobs;
  setup.workers_per_gpu = options.workers_per_gpu.value_or(2);
  setup.device_memory_gb = options.device_memory_gb;
  setup.prestart = options.prestart ? *options.prestart == "on" : device.is_cuda();
  if (options.keep_reference) {
    const auto mode = keep_reference_from_string(*options.keep_reference);
    if (!mode) throw InputError(fmt::format("--keep-reference {}: expected auto, on or off", *options.keep_reference));
    setup.keep_reference = *mode;
  }
  if (options.keep_reference_drift) setup.keep_reference_drift = *options.keep_reference_drift;
}

SuitePlan plan_suite(const SuiteRunOptions& options) {
  SuitePlan plan;
  plan.suite = load_run_suite(options);
  plan.devices = resolve_devices(options.device);
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
  // Absolute: each worker runs in its own job folder, so a relative path would miss its files.
  const auto work_dir =
      temporary ? make_temp_work_dir("kbench-run") : std::filesystem::absolute(*options.work_dir);
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
  std::optional<GenerationRequest> follow_up_request;  // --turns K > 1: the agent's later turns
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
    // The live line while the first turn is asked for: nothing evaluated yet, requests and tokens.
    ProgressTracker tracker(suite.problems.size() * std::size_t(generation->samples * generation->turns), 0);
    if (options.progress)
      request.progress = [&](std::size_t in_flight, long long tokens) {
        tracker.set_generation(in_flight, tokens);
        options.progress(tracker);
      };
    generated = options.generator(suite, request);
    request.progress = nullptr;
    if (generation->turns > 1) follow_up_request = request;
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
  for (const auto& p : suite.problems)
    if (p.degenerate_reason) report.degenerate_problems[p.id] = *p.degenerate_reason;
  if (generation)
    report.generation = GenerationRun{generation->base_url, generation->model, generation->backend,
                                      generation->samples, generation->turns};

  SessionSetup setup;
  setup.devices = devices;
  setup.work_dir = work_dir;
  apply_scheduling(options, device, setup);
  setup.environment = probed;
  setup.journal_file = journal_file;
  setup.resume = options.resume;
  setup.reporters = &reporters;
  setup.log = options.log;
  setup.progress = options.progress;
  // Generated candidates are reported by problem, sample and turn, whatever order they finish in.
  if (generation) setup.report_order = generated_order(suite);
  // A reply without code is a result without a worker (never journaled: the cache replays it).
  std::vector<Job> plan;
  std::vector<JobResult> no_code;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!jobs[i].origin || (i < generated.size() && generated[i].source_file)) {
      plan.push_back(jobs[i]);
      continue;
    }
    no_code.push_back(no_code_result(jobs[i]));
  }
  const std::size_t evaluations = jobs.size() * std::size_t(generation ? generation->turns : 1);
  auto announce = [&](const RunSession& session) {
    log(fmt::format("kbench: suite '{}': {} problems, {} evaluations on {} ({} worker slot{})",
                    suite.name, suite.problems.size(), evaluations, to_string(device), session.slot_count(),
                    session.slot_count() == 1 ? "" : "s"));
  };
  if (follow_up_request) {
    // The agent loop: each result is fed back and the reply evaluated as the next turn.
    if (!options.follow_up)
      throw EnvironmentError("this kbench was built without model-endpoint generation (the agent loop)");
    AgentSettings agent_settings;
    agent_settings.turns = generation->turns;
    agent_settings.concurrency = generation->concurrency;
    agent_settings.device = devices.front();
    agent_settings.next_turn = options.follow_up(*follow_up_request);
    agent_settings.stopping = interrupt_requested;
    AgentLoop agent(suite, std::move(agent_settings));
    setup.on_result = [&agent](std::size_t, const JobResult& result, bool) { agent.on_result(result); };
    RunSession session(std::move(setup), std::move(report), plan);
    announce(session);
    report = agent.run(session, generated);
  } else {
    RunSession session(std::move(setup), std::move(report), plan);
    for (auto& result : no_code) session.record(std::move(result));
    session.expect(jobs.size());
    announce(session);
    session.close();
    report = session.run();
  }
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
