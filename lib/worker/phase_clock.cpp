#include "worker/phase_clock.hpp"

#include <algorithm>

namespace kbench {

PhaseClock& PhaseClock::instance() {
  static PhaseClock clock;
  return clock;
}

void PhaseClock::enter(const std::string& phase) {
  finish();
  current_ = phase;
  since_ = Clock::now();
  if (observer_) observer_(current_);
}

namespace {

void add_to(std::vector<std::pair<std::string, double>>& totals, const std::string& name, double seconds) {
  for (auto& [known, total] : totals)
    if (known == name) {
      total += seconds;
      return;
    }
  totals.emplace_back(name, seconds);
}

nlohmann::json to_json(const std::vector<std::pair<std::string, double>>& totals) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, seconds] : totals) out[name] = seconds;
  return out;
}

}  // namespace

void PhaseClock::finish() {
  if (current_.empty()) return;
  add_to(phases_, current_, std::chrono::duration<double>(Clock::now() - since_).count());
  current_.clear();
}

nlohmann::json PhaseClock::json() const { return to_json(phases_); }

nlohmann::json PhaseClock::steps_json() const { return to_json(steps_); }

PhaseStep::PhaseStep(const std::string& step) : since_(PhaseClock::Clock::now()) {
  PhaseClock& clock = PhaseClock::instance();
  key_ = clock.current_.empty() ? step : clock.current_ + "." + step;
  clock.nested_s_.push_back(0.0);
}

PhaseStep::~PhaseStep() {
  PhaseClock& clock = PhaseClock::instance();
  const double seconds = std::chrono::duration<double>(PhaseClock::Clock::now() - since_).count();
  const double nested = clock.nested_s_.back();
  clock.nested_s_.pop_back();
  if (!clock.nested_s_.empty()) clock.nested_s_.back() += seconds;
  add_to(clock.steps_, key_, std::max(0.0, seconds - nested));
}

}  // namespace kbench
