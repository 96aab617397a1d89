#include "measure/sample_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace kbench {

SampleStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  SampleStats stats;
  stats.n = samples.size();
  const std::size_t mid = stats.n / 2;
  stats.median = stats.n % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(stats.n);
  stats.min = samples.front();
  stats.max = samples.back();
  if (stats.n > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - stats.mean) * (x - stats.mean);
    stats.stdev = std::sqrt(squares / double(stats.n - 1));
  }
  return stats;
}

}  // namespace kbench
