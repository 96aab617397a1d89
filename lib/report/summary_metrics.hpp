#pragma once
// Suite-level figures (exact definitions: docs/metrics.md).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/job_result.hpp"
#include "measure/confidence.hpp"

namespace kbench {

// The figures reported for the whole run and again for each level and each tag.
struct GroupMetrics {
  std::size_t problems = 0;
  std::size_t evaluations = 0;  // problem x candidate results
  std::size_t correct = 0;
  double pass_at_1 = 0;       // mean over problems of (correct candidates / candidates)
  // Mean over problems of (correct and faster than Inductor / candidates); unset when no result
  // was timed against Inductor (e.g. `baselines: [eager]`). Point estimate (KernelBench fast_1).
  std::optional<double> beats_inductor;
  std::optional<double> geomean_speedup_vs_inductor;  // over correct candidates timed vs it
};

// fast_p for the thresholds in fast_p_thresholds(), keyed by the threshold's label ("0.5").
struct FastP {
  std::map<std::string, double> significant;  // correct and speedup CI low > p (p = 0: correct)
  std::map<std::string, double> point;        // correct and speedup value > p (KernelBench)
};

struct GeomeanEstimate {
  double value = 0;
  Interval ci;  // 95% bootstrap over evaluations
};

struct GeomeanFigures {
  std::optional<GeomeanEstimate> correct;             // correct candidates with a speedup
  std::optional<GeomeanEstimate> all_failures_as_1x;  // plus every failed candidate at 1x
};

struct SummaryMetrics : GroupMetrics {
  std::optional<double> geomean_speedup_vs_eager;
  std::map<int, double> pass_at_k;  // k in {1, 5, 10} where some problem has n >= k
  std::optional<double> beats_inductor_significant;  // fast_p.at("inductor")->significant["1"]
  // Per baseline ("eager", "inductor"); unset for a baseline no result was timed against.
  std::map<std::string, std::optional<FastP>> fast_p;
  std::map<std::string, std::optional<GeomeanFigures>> geomean;
  std::map<int, GroupMetrics> by_level;
  std::map<std::string, GroupMetrics> by_tag;  // a problem counts in every tag it has
};

// (p, label) pairs for fast_p: 0, 0.5, 0.8, 1, 1.5, 2.
const std::vector<std::pair<double, std::string>>& fast_p_thresholds();

// Unbiased pass@k for one problem (Chen et al. 2021); requires n >= k.
double pass_at_k(std::size_t n, std::size_t c, std::size_t k);

GroupMetrics compute_group(const std::vector<JobResult>& results);
SummaryMetrics compute_summary(const std::vector<JobResult>& results);

}  // namespace kbench
