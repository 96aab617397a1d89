#include "measure/confidence.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "measure/sample_stats.hpp"

namespace kbench {
namespace {

// Two-sided standard normal quantile for the usual confidence levels.
double z_value(double confidence) {
  if (confidence >= 0.99) return 2.5758;
  if (confidence >= 0.95) return 1.9600;
  if (confidence >= 0.90) return 1.6449;
  return 1.2816;
}

double median_of(std::vector<double>& values) {
  const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  double m = *mid;
  if (values.size() % 2 == 0) m = 0.5 * (m + *std::max_element(values.begin(), mid));
  return m;
}

// One round-then-sample resample of `rounds`, using the round indices drawn in `picks`.
void resample(const RoundSamples& rounds, const std::vector<std::size_t>& picks, std::mt19937_64& rng,
              std::vector<double>& out) {
  out.clear();
  for (std::size_t r : picks) {
    const auto& round = rounds[r];
    std::uniform_int_distribution<std::size_t> within(0, round.size() - 1);
    for (std::size_t i = 0; i < round.size(); ++i) out.push_back(round[within(rng)]);
  }
}

std::vector<double> nonempty_check(const RoundSamples& rounds) {
  std::vector<double> all;
  for (const auto& round : rounds) {
    if (round.empty()) throw std::invalid_argument("bootstrap: empty round");
    all.insert(all.end(), round.begin(), round.end());
  }
  if (all.empty()) throw std::invalid_argument("bootstrap: no samples");
  return all;
}

Interval percentile_interval(std::vector<double>& estimates, double confidence) {
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1 - confidence) / 2;
  return {sorted_quantile(estimates, tail), sorted_quantile(estimates, 1 - tail)};
}

}  // namespace

Interval median_order_statistic_ci(std::vector<double> samples, double confidence) {
  if (samples.empty()) throw std::invalid_argument("median CI of no samples");
  std::sort(samples.begin(), samples.end());
  const double n = double(samples.size());
  const double half = z_value(confidence) * std::sqrt(n) / 2;
  const auto low = std::size_t(std::clamp(std::floor(n / 2 - half), 0.0, n - 1));
  const auto high = std::size_t(std::clamp(std::ceil(n / 2 + half), 0.0, n - 1));
  return {samples[low], samples[high]};
}

Interval bootstrap_median_ci(const RoundSamples& rounds, const BootstrapOptions& options) {
  nonempty_check(rounds);
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick_round(0, rounds.size() - 1);
  std::vector<std::size_t> picks(rounds.size());
  std::vector<double> buffer, estimates;
  estimates.reserve(options.resamples);
  for (int b = 0; b < options.resamples; ++b) {
    for (auto& p : picks) p = pick_round(rng);
    resample(rounds, picks, rng, buffer);
    estimates.push_back(median_of(buffer));
  }
  return percentile_interval(estimates, options.confidence);
}

Interval bootstrap_ratio_ci(const RoundSamples& numerator, const RoundSamples& denominator,
                            const BootstrapOptions& options) {
  nonempty_check(numerator);
  nonempty_check(denominator);
  if (numerator.size() != denominator.size())
    throw std::invalid_argument("bootstrap ratio: variants have different round counts");
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick_round(0, numerator.size() - 1);
  std::vector<std::size_t> picks(numerator.size());
  std::vector<double> top, bottom, estimates;
  estimates.reserve(options.resamples);
  for (int b = 0; b < options.resamples; ++b) {
    for (auto& p : picks) p = pick_round(rng);  // the same rounds for both: paired in time
    resample(numerator, picks, rng, top);
    resample(denominator, picks, rng, bottom);
    const double d = median_of(bottom);
    if (d > 0) estimates.push_back(median_of(top) / d);
  }
  if (estimates.empty()) throw std::invalid_argument("bootstrap ratio: zero denominator");
  return percentile_interval(estimates, options.confidence);
}

Interval bootstrap_independent_ratio_ci(const RoundSamples& numerator,
                                        const RoundSamples& denominator,
                                        const BootstrapOptions& options) {
  nonempty_check(numerator);
  nonempty_check(denominator);
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick_top(0, numerator.size() - 1);
  std::uniform_int_distribution<std::size_t> pick_bottom(0, denominator.size() - 1);
  std::vector<std::size_t> top_picks(numerator.size()), bottom_picks(denominator.size());
  std::vector<double> top, bottom, estimates;
  estimates.reserve(options.resamples);
  for (int b = 0; b < options.resamples; ++b) {
    for (auto& p : top_picks) p = pick_top(rng);
    for (auto& p : bottom_picks) p = pick_bottom(rng);
    resample(numerator, top_picks, rng, top);
    resample(denominator, bottom_picks, rng, bottom);
    const double d = median_of(bottom);
    if (d > 0) estimates.push_back(median_of(top) / d);
  }
  if (estimates.empty()) throw std::invalid_argument("bootstrap ratio: zero denominator");
  return percentile_interval(estimates, options.confidence);
}

}  // namespace kbench
