#include "measure/timing_config.hpp"

namespace kbench {

const std::vector<std::string>& timing_mode_names() {
  static const std::vector<std::string> names = {"cold", "hot", "graph", "kernelbench"};
  return names;
}

std::string to_string(TimingMode mode) { return timing_mode_names()[static_cast<int>(mode)]; }

std::optional<TimingMode> timing_mode_from_string(const std::string& text) {
  const auto& names = timing_mode_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<TimingMode>(i);
  return std::nullopt;
}

const std::vector<std::string>& timing_keys() {
  static const std::vector<std::string> keys = {
      "mode",          "target_ci", "min_samples",       "max_samples", "min_time_s",
      "max_time_s",    "warmup",    "warmup_time_s",     "samples_per_round", "input_sets"};
  return keys;
}

ResolvedTiming resolve_timing(const TimingConfig& c, DeviceKind kind) {
  const bool gpu = kind == DeviceKind::cuda;
  ResolvedTiming r;
  r.mode = c.mode;
  r.target_ci = c.target_ci;
  // GPU: >= 5 rounds of 10, >= 250 ms of warmup per variant (clock ramp-up takes ~400 ms over
  // the three), 8 s cap. CPU: the Triton interpreter takes ~0.1-0.3 s a call, so small budgets.
  r.min_samples = c.min_samples.value_or(gpu ? 50 : 10);
  r.max_samples = c.max_samples.value_or(gpu ? 5000 : 1000);
  r.min_time_s = c.min_time_s.value_or(gpu ? 0.05 : 0.0);
  r.max_time_s = c.max_time_s.value_or(gpu ? 8.0 : 5.0);
  r.warmup = c.warmup.value_or(gpu ? 5 : 2);
  r.warmup_time_s = c.warmup_time_s.value_or(gpu ? 0.25 : 0.0);
  r.samples_per_round = c.samples_per_round.value_or(gpu ? 10 : 5);
  r.input_sets = c.input_sets.value_or(gpu ? 4 : 2);
  if (r.max_samples < r.min_samples) r.max_samples = r.min_samples;
  return r;
}

}  // namespace kbench
