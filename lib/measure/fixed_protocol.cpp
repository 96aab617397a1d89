#include "measure/fixed_protocol.hpp"

namespace kbench {

std::vector<double> measure_fixed(Timer& timer, const std::function<void()>& fn,
                                  const FixedProtocol& protocol) {
  for (int i = 0; i < protocol.warmup; ++i) timer.time_ms(fn);
  std::vector<double> samples;
  samples.reserve(protocol.trials);
  for (int i = 0; i < protocol.trials; ++i) samples.push_back(timer.time_ms(fn));
  return samples;
}

}  // namespace kbench
