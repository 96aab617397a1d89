#pragma once
// Where a worker's evaluation time goes, phase by phase (diagnostics.worker_timeline.phases_s,
// docs/results-format.md): enter() closes the phase in progress and starts the next, so a
// verdict thrown in the middle of a phase leaves its time with that phase. Wall-clock seconds,
// GPU lock waits included (those are also reported alone, protocol.gpu_lock_wait_s).
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

class PhaseClock {
 public:
  static PhaseClock& instance();  // the worker's one clock

  void enter(const std::string& phase);
  void finish();  // closes the phase in progress
  // {phase: seconds}; a phase entered more than once is summed.
  [[nodiscard]] nlohmann::json json() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string, double>> phases_;
  std::string current_;
  Clock::time_point since_{};
};

}  // namespace kbench
