#pragma once
// What one job produced: status, diagnostics, raw timing samples per variant, and the speedups
// derived from them in C++.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/job.hpp"
#include "model/kept_reference_use.hpp"
#include "model/memory_usage.hpp"
#include "model/status.hpp"
#include "measure/confidence.hpp"
#include "measure/sample_stats.hpp"

namespace kbench {

struct Measurement {
  std::string timer;                 // "host_clock", "cuda_event"
  std::string mode;                  // "cold", "hot", "graph", "kernelbench"
  std::string statistic = "median";  // the headline statistic ("mean" in kernelbench mode)
  std::vector<double> samples_ms;
  std::vector<int> rounds;  // round of each sample
  int offstream_samples = 0;
  int discarded_samples = 0;
  int calls_per_sample = 1;
  int warmup_calls = 0;
  // Recomputed in C++ from the samples:
  SampleStats stats;
  std::optional<Interval> median_ci;  // 95%, round bootstrap
  [[nodiscard]] double headline_ms() const { return statistic == "mean" ? stats.mean : stats.median; }
};

// FASTER / SLOWER when the CI excludes 1 and the change is >= 2%; SAME when the CI lies within
// [0.98, 1.02]; otherwise AMBIGUOUS (docs/metrics.md).
enum class SpeedupVerdict { faster, slower, same, ambiguous };
std::string to_string(SpeedupVerdict verdict);
SpeedupVerdict classify_speedup(double value, const Interval& ci);

struct SpeedupEstimate {
  double value = 0;               // headline(baseline) / headline(candidate)
  std::optional<Interval> ci;     // 95% paired round bootstrap of the ratio of medians
  std::optional<SpeedupVerdict> verdict;
};

// Where and when the controller ran a job: which worker slot and device, and the worker's wall
// interval (Unix seconds), so concurrency can be checked from the results file.
struct ScheduleInfo {
  int slot = 0;
  Device device;
  double start_unix_s = 0;
  double end_unix_s = 0;
};

struct JobResult {
  Job job;
  Status status = Status::crashed;
  std::string message;  // one line: why it failed, or "" when ok
  nlohmann::json diagnostics = nlohmann::json::object();
  std::map<std::string, Measurement> timings;  // "candidate", "eager", "inductor"
  nlohmann::json protocol = nlohmann::json::object();  // rounds, convergence, clocks, flush...
  std::map<std::string, SpeedupEstimate> speedups;     // per baseline, for correct candidates
  double wall_s = 0;
  std::optional<ScheduleInfo> schedule;  // absent in files written before it existed
  std::optional<MemoryUsage> memory;     // absent: a worker that died, or files before it existed
  // Set when the run kept reference work for the job's problem (model/kept_reference.hpp); with
  // `kept`, the baselines' samples are the record's, timed apart from the candidate's.
  std::optional<KeptReferenceUse> kept_reference;
};

// The variants timed against each other; "candidate" is always first.
inline const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = {"candidate", "eager", "inductor"};
  return names;
}

// The samples of `m` grouped by round, in round order: the unit the bootstrap resamples.
RoundSamples samples_by_round(const Measurement& m);

// Recomputes stats, median CIs and speedups from the raw samples in `result.timings`.
void derive_statistics(JobResult& result);

// The point speedup vs `baseline`, when the candidate is correct and both were timed.
std::optional<double> speedup_vs(const JobResult& result, const std::string& baseline);

// The JSON forms (worker frame, results entry, journal line) are in model/codec.hpp.

}  // namespace kbench
