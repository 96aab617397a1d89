#include "worker/phase_clock.hpp"

namespace kbench {

PhaseClock& PhaseClock::instance() {
  static PhaseClock clock;
  return clock;
}

void PhaseClock::enter(const std::string& phase) {
  finish();
  current_ = phase;
  since_ = Clock::now();
}

void PhaseClock::finish() {
  if (current_.empty()) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - since_).count();
  bool found = false;
  for (auto& [name, total] : phases_)
    if (name == current_) {
      total += seconds;
      found = true;
    }
  if (!found) phases_.emplace_back(current_, seconds);
  current_.clear();
}

nlohmann::json PhaseClock::json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, seconds] : phases_) out[name] = seconds;
  return out;
}

}  // namespace kbench
