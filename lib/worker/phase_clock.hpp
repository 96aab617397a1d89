#pragma once
// Where a worker's evaluation time goes, phase by phase (diagnostics.worker_timeline.phases_s,
// docs/results-format.md): enter() closes the phase in progress and starts the next, so a
// verdict thrown in the middle of a phase leaves its time with that phase. Wall-clock seconds,
// GPU lock waits included (those are also reported alone, protocol.gpu_lock_wait_s).
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kbench {

class PhaseClock {
 public:
  static PhaseClock& instance();  // the worker's one clock

  void enter(const std::string& phase);
  // Called with each phase entered (the worker entry point announces it to the controller, so a
  // stopped job's line names where each worker was: lock_blame.hpp).
  void set_observer(std::function<void(const std::string&)> observer) { observer_ = std::move(observer); }
  void finish();  // closes the phase in progress
  [[nodiscard]] const std::string& current() const { return current_; }  // "" between phases
  // {phase: seconds}; a phase entered more than once is summed.
  [[nodiscard]] nlohmann::json json() const;

  // Steps inside a phase (worker_timeline.steps_s, {"phase.step": seconds}, summed; timed by
  // PhaseStep below): where a long phase's time goes, the phases themselves unchanged. A step's
  // time is its own: what steps nested in it took is theirs (a timing run that builds inputs),
  // so a phase's steps add up to at most the phase.
  [[nodiscard]] nlohmann::json steps_json() const;

 private:
  using Clock = std::chrono::steady_clock;
  friend class PhaseStep;
  std::vector<std::pair<std::string, double>> phases_;
  std::vector<std::pair<std::string, double>> steps_;
  std::vector<double> nested_s_;  // per open step: the time of the steps nested in it
  std::string current_;
  Clock::time_point since_{};
  std::function<void(const std::string&)> observer_;
};

// Times one step of the phase in progress, from construction to destruction. On CUDA, work
// queued asynchronously is counted by the step that waits for it (a copy to the host).
// Keyed by the phase in progress when it starts.
class PhaseStep {
 public:
  explicit PhaseStep(const std::string& step);
  PhaseStep(const PhaseStep&) = delete;
  PhaseStep& operator=(const PhaseStep&) = delete;
  ~PhaseStep();

 private:
  std::string key_;
  PhaseClock::Clock::time_point since_;
};

}  // namespace kbench
