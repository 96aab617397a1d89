#pragma once
// One timed call of a variant (candidate, eager, Inductor). Implementations: a steady host clock
// (CPU runs) and CUDA events (GPU runs). The protocol that decides how many calls to time lives
// in measure/fixed_protocol.hpp and is replaced by the measurement engine later.
#include <functional>
#include <memory>
#include <string>

namespace kbench {

class Timer {
 public:
  virtual ~Timer() = default;
  // "host_clock" or "cuda_event": stored with every figure so readers know what made it.
  [[nodiscard]] virtual std::string name() const = 0;
  // Wall time of one call of `fn`, in milliseconds, with all of its device work finished.
  virtual double time_ms(const std::function<void()>& fn) = 0;
};

std::unique_ptr<Timer> make_host_timer();
// Throws EnvironmentError when the CUDA driver is unavailable or kbench was built without CUDA.
std::unique_ptr<Timer> make_cuda_event_timer(int device_index);

}  // namespace kbench
