#include <algorithm>
#include <chrono>

#include "measure/cuda_driver.hpp"
#include "measure/timer.hpp"

namespace kbench {
namespace {

// Events on the legacy default stream (torch's default current stream). Each sample starts on
// an idle device. After the end event, a device-wide synchronisation catches work that the call
// left on other streams: its excess over the end event is added and the sample is flagged, so
// side-stream work is never under-reported.
class CudaEventTimer final : public Timer {
 public:
  explicit CudaEventTimer(int device_index) : events_(device_index) {}
  [[nodiscard]] std::string name() const override { return "cuda_event"; }

  TimedSample time(const std::function<void()>& fn, bool blocking) override {
    using clock = std::chrono::steady_clock;
    events_.synchronize_device();
    if (blocking) events_.launch_blocker(kBlockerTimeoutNs);
    events_.record_start();
    try {
      fn();
    } catch (...) {
      if (blocking) events_.release_blocker();
      events_.synchronize_device();
      throw;
    }
    events_.record_end();
    if (blocking) events_.release_blocker();
    events_.wait_end();
    const auto end_seen = clock::now();
    events_.synchronize_device();
    const double excess_ms = std::chrono::duration<double, std::milli>(clock::now() - end_seen).count();
    TimedSample sample{events_.elapsed_ms()};
    if (blocking && events_.blocker_timed_out()) sample.valid = false;
    // An idle device synchronises in a few microseconds; more means work still ran elsewhere.
    if (excess_ms > std::max(kOffstreamFloorMs, 0.05 * sample.ms)) {
      sample.offstream = true;
      sample.ms += excess_ms;
    }
    return sample;
  }

 private:
  static constexpr unsigned long long kBlockerTimeoutNs = 1'000'000'000ULL;
  static constexpr double kOffstreamFloorMs = 0.05;
  cuda::EventPair events_;
};

}  // namespace

std::unique_ptr<Timer> make_cuda_event_timer(int device_index) {
  return std::make_unique<CudaEventTimer>(device_index);
}

}  // namespace kbench
