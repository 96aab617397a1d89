#pragma once
// `kbench run` as a library call: suite -> jobs -> workers -> reports. The CLI only parses
// options into SuiteRunOptions and prints.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "report/run_report.hpp"
#include "run/generation_request.hpp"
#include "run/run_session.hpp"
#include "report/progress_line.hpp"
#include "report/reporter_set.hpp"
#include "model/job.hpp"
#include "run/selection.hpp"
#include "run/shard.hpp"
#include "suite/suite.hpp"

namespace kbench {

struct SuiteRunOptions {
  std::filesystem::path suite_file;
  std::optional<std::filesystem::path> results_file;  // JSON, rewritten after every job; "-": stdout
  std::vector<OutputSpec> outputs;  // more reports (format, file or "-"); docs/reports.md
  std::string device = "auto";
  std::optional<std::filesystem::path> work_dir;  // default: a fresh temp dir, removed after
  bool keep_work_dir = false;
  std::optional<double> timeout_s;  // overrides every problem's timeout_s
  // Overrides of every problem's settings (CLI):
  std::vector<std::string> candidates;  // patterns, relative to the current directory, {id} ok
  std::vector<std::string> baselines;
  std::optional<std::string> timing_mode;
  std::optional<std::string> timing_preset;  // full / rl: the defaults of unset timing keys
  std::optional<double> target_ci;
  std::optional<double> max_time_s;
  std::optional<std::string> checks;  // integrity level for every problem (docs/integrity.md)
  std::optional<Shard> shard;  // run only this shard's problems (run/shard.hpp)
  ProblemSelection selection;  // --problems, --levels, --tags, --limit (run/selection.hpp)
  // Scheduling (docs/cli.md): worker slots (default: one per GPU x workers_per_gpu, 1 on CPU).
  std::optional<int> jobs;
  std::optional<int> workers_per_gpu;  // default 2 on CUDA
  // Memory the ledger shares out per device (docs/memory.md#admission); default 95% of each
  // GPU's, the CPU unbounded. Given, it bounds the CPU too (the host-memory analogue).
  std::optional<double> device_memory_gb;
  std::optional<std::string> prestart;  // "on" / "off"; default on with CUDA, off on the CPU
  // Reference work kept across jobs of one problem (docs/timing.md#kept-reference-work): "auto"
  // (default: repeated problems on a GPU), "on", "off"; the drift check's bound (default 0.01).
  std::optional<std::string> keep_reference;
  std::optional<double> keep_reference_drift;
  // Journal (default: next to results_file; none without one) and --resume.
  std::optional<std::filesystem::path> journal;
  bool resume = false;
  // Candidates from a model endpoint (docs/endpoints.md): overrides of the suite's `generate:`
  // block; a base_url without such a block makes one.
  struct Generation {
    std::optional<std::string> base_url, model, api_key_env, backend;
    std::optional<int> samples, turns, concurrency;
    bool no_cache = false;
    std::optional<std::filesystem::path> cache_file;   // default: default_generation_cache_path()
    std::optional<std::filesystem::path> prices_file;  // --prices
    std::optional<std::filesystem::path> output_dir;   // default: <results>.generated
  } generation;
  CandidateGenerator generator;  // empty: built without lib/generate
  FollowUpFactory follow_up;     // the agent's later turns (--turns K > 1); set with `generator`
  std::function<std::filesystem::path()> default_cache_file;  // set with `generator`
  std::function<void(double)> generation_sleep;  // tests shorten retry waits; may be empty
  std::function<void(const std::string&)> log;  // progress lines; may be empty
  // Called, one call at a time, whenever a job starts or finishes; may be empty.
  std::function<void(const ProgressTracker&)> progress;
};

// The suite as a run sees it: loaded, the CLI's overrides applied (checks, timing, baselines,
// timeout), problems selected and sharded. `kbench run` and the Evaluator (lib/service) share it.
Suite load_run_suite(const SuiteRunOptions& options);
// The scheduling part of a session from the options: worker slots (`jobs`), workers per GPU
// (default 2), prestart (default on with CUDA). `device`: run_device() of the run's devices.
void apply_scheduling(const SuiteRunOptions& options, const Device& device, SessionSetup& setup);

// The suite as this run sees it: loaded, CLI overrides applied, problems selected and sharded,
// and its jobs planned on the first device (`--dry-run` prints this and stops).
struct SuitePlan {
  Suite suite;
  std::vector<Device> devices;
  std::vector<Job> jobs;
};
SuitePlan plan_suite(const SuiteRunOptions& options);

// Throws InputError / EnvironmentError before any job runs when the suite, the output path or
// the device is wrong. Candidate failures are results, not errors.
RunReport run_suite(const SuiteRunOptions& options);

}  // namespace kbench
