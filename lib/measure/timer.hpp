#pragma once
// One timed call of a variant (candidate, eager, Inductor). Implementations: a steady host clock
// (CPU runs) and CUDA events (GPU runs). How many calls, in which order and mode, is the
// protocol's business (measure/interleaved_protocol.hpp).
#include <functional>
#include <memory>
#include <string>

namespace kbench {

struct TimedSample {
  double ms = 0;
  // Device work outlived the end event (another stream or thread): the excess was added to `ms`
  // and the sample is flagged.
  bool offstream = false;
  bool valid = true;  // false: the blocking kernel timed out; the sample is discarded
};

class Timer {
 public:
  virtual ~Timer() = default;
  // "host_clock" or "cuda_event": stored with every figure so readers know what made it.
  [[nodiscard]] virtual std::string name() const = 0;
  // One call of `fn` with all of its device work finished. `blocking` hides launch latency
  // behind a blocking kernel where the timer supports it.
  virtual TimedSample time(const std::function<void()>& fn, bool blocking) = 0;
};

std::unique_ptr<Timer> make_host_timer();
// Throws EnvironmentError when the CUDA driver is unavailable or kbench was built without CUDA.
std::unique_ptr<Timer> make_cuda_event_timer(int device_index);

}  // namespace kbench
