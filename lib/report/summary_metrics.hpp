#pragma once
// Suite-level figures (exact definitions: docs/metrics.md).
#include <cstddef>
#include <optional>
#include <vector>

#include "exec/job_result.hpp"

namespace kbench {

struct SummaryMetrics {
  std::size_t problems = 0;
  std::size_t evaluations = 0;  // problem x candidate results
  std::size_t correct = 0;
  double pass_at_1 = 0;       // mean over problems of (correct candidates / candidates)
  // Mean over problems of (correct and faster than Inductor / candidates); unset when no result
  // was timed against Inductor (e.g. `baselines: [eager]`).
  std::optional<double> beats_inductor;
  std::optional<double> geomean_speedup_vs_inductor;  // over correct candidates timed vs it
  std::optional<double> geomean_speedup_vs_eager;
};

SummaryMetrics compute_summary(const std::vector<JobResult>& results);

}  // namespace kbench
