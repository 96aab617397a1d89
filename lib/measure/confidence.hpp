#pragma once
// Confidence intervals for medians and ratios of medians of timing samples.
//
// Samples taken in the same round are correlated (clocks, temperature, neighbours), so the
// bootstrap resamples whole rounds (then samples within each chosen round), never samples
// alone: a plain bootstrap gives intervals that are too narrow. For a speedup, the same rounds
// are drawn for both variants, so drift common to a round cancels in the ratio.
#include <cstdint>
#include <vector>

namespace kbench {

struct Interval {
  double low = 0;
  double high = 0;
  [[nodiscard]] bool contains(double x) const { return low <= x && x <= high; }
};

// Samples of one variant grouped by round (rounds[r] = the samples of round r).
using RoundSamples = std::vector<std::vector<double>>;

// Distribution-free CI of the median from order statistics (binomial approximation). Cheap;
// used by the stopping rule. Relative half-width = (high - low) / 2 / median.
Interval median_order_statistic_ci(std::vector<double> samples, double confidence = 0.95);

struct BootstrapOptions {
  int resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 0x6b62656e6368ULL;  // fixed: the same samples give the same interval
};

Interval bootstrap_median_ci(const RoundSamples& rounds, const BootstrapOptions& options = {});

// CI of median(numerator) / median(denominator); both must have the same number of rounds.
Interval bootstrap_ratio_ci(const RoundSamples& numerator, const RoundSamples& denominator,
                            const BootstrapOptions& options = {});

// CI of median(numerator) / median(denominator) for samples from two separate runs (kbench
// compare): rounds are resampled within each run independently, since no round of one run
// corresponds to a round of the other.
Interval bootstrap_independent_ratio_ci(const RoundSamples& numerator,
                                        const RoundSamples& denominator,
                                        const BootstrapOptions& options = {});

}  // namespace kbench
