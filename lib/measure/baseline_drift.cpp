#include "measure/baseline_drift.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "measure/sample_stats.hpp"

namespace kbench {
namespace {

std::vector<double> flat(const RoundSamples& rounds) {
  std::vector<double> all;
  for (const auto& round : rounds) all.insert(all.end(), round.begin(), round.end());
  return all;
}

}  // namespace

DriftCheck check_baseline_drift(const RoundSamples& fresh, const RoundSamples& kept, double bound) {
  DriftCheck check;
  check.ratio_ci = bootstrap_independent_ratio_ci(fresh, kept);
  const double kept_median = summarize(flat(kept)).median;
  check.drift = kept_median > 0 ? summarize(flat(fresh)).median / kept_median - 1 : 0;
  check.within = check.ratio_ci.low >= 1 - bound && check.ratio_ci.high <= 1 + bound;
  if (!check.within)
    check.reason = fmt::format("the fresh baseline differs from the kept one by {:+.2f}% (95% CI of the ratio "
                               "[{:.4f}, {:.4f}], not within 1 -/+ {:g})",
                               100 * check.drift, check.ratio_ci.low, check.ratio_ci.high, bound);
  return check;
}

int short_baseline_rounds(int min_samples, int samples_per_round) {
  const int per_round = std::max(1, samples_per_round);
  return std::max(kMinDriftRounds, (std::max(0, min_samples) + per_round - 1) / per_round);
}

}  // namespace kbench
