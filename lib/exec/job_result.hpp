#pragma once
// What one job produced: status, diagnostics and raw timing samples per variant.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/job.hpp"
#include "exec/status.hpp"
#include "measure/sample_stats.hpp"

namespace kbench {

struct Measurement {
  std::string timer;  // which Timer made the samples ("host_clock", "cuda_event")
  std::vector<double> samples_ms;
  SampleStats stats;  // always recomputed in C++ from samples_ms
};

struct JobResult {
  Job job;
  Status status = Status::crashed;
  std::string message;  // one line: why it failed, or "" when ok
  nlohmann::json diagnostics = nlohmann::json::object();
  std::map<std::string, Measurement> timings;  // "candidate", "eager", "inductor"
  double wall_s = 0;
};

// The variants timed against each other; "candidate" is always first.
inline const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> names = {"candidate", "eager", "inductor"};
  return names;
}

// Median(baseline) / median(candidate), when the candidate is correct and both were timed.
std::optional<double> speedup_vs(const JobResult& result, const std::string& baseline);

// The worker's message (status, message, diagnostics, timings with raw samples).
nlohmann::json worker_message(const JobResult& result);
// Fills status/message/diagnostics/timings of `result` from a worker message; the statistics are
// recomputed from the samples. Throws std::runtime_error on a malformed message.
void apply_worker_message(const nlohmann::json& message, JobResult& result);

}  // namespace kbench
