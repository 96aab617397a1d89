#include "measure/sample_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace kbench {

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  const double position = q * double(sorted.size() - 1);
  const auto below = std::size_t(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - double(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

SampleStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  SampleStats stats;
  stats.n = samples.size();
  stats.median = sorted_quantile(samples, 0.5);
  stats.p10 = sorted_quantile(samples, 0.10);
  stats.p25 = sorted_quantile(samples, 0.25);
  stats.p75 = sorted_quantile(samples, 0.75);
  stats.p90 = sorted_quantile(samples, 0.90);
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(stats.n);
  stats.min = samples.front();
  stats.max = samples.back();
  if (stats.n > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - stats.mean) * (x - stats.mean);
    stats.stdev = std::sqrt(squares / double(stats.n - 1));
  }
  stats.cv = stats.mean > 0 ? stats.stdev / stats.mean : 0;
  return stats;
}

}  // namespace kbench
