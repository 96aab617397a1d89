#include "measure/offstream_rule.hpp"

#include <cmath>

namespace kbench {

int offstream_noise_allowance(std::size_t samples) {
  if (samples == 0) return 0;
  const double n = static_cast<double>(samples);
  const double p = kOffstreamNoiseRate;
  // Binomial pmf by recurrence, from P(0) = (1 - p)^n (in logs: n reaches millions in hot mode).
  double pmf = std::exp(n * std::log1p(-p));
  double tail = 1.0 - pmf;  // P(X > 0)
  int k = 0;
  while (tail >= kOffstreamNoiseP && static_cast<std::size_t>(k) < samples) {
    pmf *= (n - k) / (k + 1.0) * p / (1.0 - p);
    ++k;
    tail -= pmf;
  }
  return k;
}

OffstreamVerdict judge_offstream(int offstream_samples, std::size_t samples) {
  if (offstream_samples <= 0 || samples == 0) return OffstreamVerdict::none;
  if (samples >= 3 && 2 * static_cast<std::size_t>(offstream_samples) >= samples) return OffstreamVerdict::reject;
  if (offstream_samples <= offstream_noise_allowance(samples)) return OffstreamVerdict::none;
  return OffstreamVerdict::flag;
}

}  // namespace kbench
