#include <chrono>

#include "measure/timer.hpp"

namespace kbench {
namespace {

// CPU tensors compute synchronously, so the host clock around the call is the whole cost.
class HostTimer final : public Timer {
 public:
  [[nodiscard]] std::string name() const override { return "host_clock"; }
  TimedSample time(const std::function<void()>& fn, bool) override {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const auto end = std::chrono::steady_clock::now();
    return {std::chrono::duration<double, std::milli>(end - start).count()};
  }
};

}  // namespace

std::unique_ptr<Timer> make_host_timer() { return std::make_unique<HostTimer>(); }

}  // namespace kbench
