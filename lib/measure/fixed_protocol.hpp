#pragma once
// The first, simple timing protocol: `warmup` untimed calls, then `trials` timed calls.
#include <functional>
#include <vector>

#include "measure/timer.hpp"

namespace kbench {

struct FixedProtocol {
  int warmup = 3;
  int trials = 20;
};

// Raw per-call samples in milliseconds, in call order.
std::vector<double> measure_fixed(Timer& timer, const std::function<void()>& fn,
                                  const FixedProtocol& protocol);

}  // namespace kbench
