#include "measure/cuda_driver.hpp"
#include "measure/timer.hpp"

namespace kbench {
namespace {

// Events on the legacy default stream, bracketed by device-wide synchronisation so the sample
// starts idle and no queued work leaks into the next one. (All-stream accounting is the job of
// the measurement engine, issue #3.)
class CudaEventTimer final : public Timer {
 public:
  explicit CudaEventTimer(int device_index) : events_(device_index) {}
  [[nodiscard]] std::string name() const override { return "cuda_event"; }
  double time_ms(const std::function<void()>& fn) override {
    events_.synchronize_device();
    events_.record_start();
    fn();
    events_.record_end();
    const double ms = events_.elapsed_ms();
    events_.synchronize_device();
    return ms;
  }

 private:
  cuda::EventPair events_;
};

}  // namespace

std::unique_ptr<Timer> make_cuda_event_timer(int device_index) {
  return std::make_unique<CudaEventTimer>(device_index);
}

}  // namespace kbench
