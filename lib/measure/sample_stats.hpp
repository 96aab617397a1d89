#pragma once
// Summary statistics of timing samples. Computed in C++ from raw samples so candidate code can
// never supply its own numbers.
#include <cstddef>
#include <vector>

namespace kbench {

struct SampleStats {
  std::size_t n = 0;
  double median = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double stdev = 0;  // sample standard deviation (n - 1)
  double p10 = 0, p25 = 0, p75 = 0, p90 = 0;
  double cv = 0;  // stdev / mean
};

// Throws std::invalid_argument on an empty input.
SampleStats summarize(std::vector<double> samples);

// Linear-interpolated quantile (q in [0, 1]) of already sorted values.
double sorted_quantile(const std::vector<double>& sorted, double q);

}  // namespace kbench
