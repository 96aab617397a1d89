#pragma once
// Seconds on the steady clock since `start`: the elapsed time every phase, lock and protocol
// figure is reported in.
#include <chrono>

namespace kbench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kbench
