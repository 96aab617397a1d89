#include "measure/timing_config.hpp"

namespace kbench {
namespace {

// The enumerator whose index in `names` is that of `text` (names are listed in enum order).
template <class Enum>
std::optional<Enum> enum_from_name(const std::vector<std::string>& names, const std::string& text) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& timing_mode_names() {
  static const std::vector<std::string> names = {"cold", "hot", "graph", "kernelbench"};
  return names;
}

std::string to_string(TimingMode mode) { return timing_mode_names()[static_cast<int>(mode)]; }

std::optional<TimingMode> timing_mode_from_string(const std::string& text) {
  return enum_from_name<TimingMode>(timing_mode_names(), text);
}

const std::vector<std::string>& timing_preset_names() {
  static const std::vector<std::string> names = {"full", "rl"};
  return names;
}

std::string to_string(TimingPreset preset) { return timing_preset_names()[static_cast<int>(preset)]; }

std::optional<TimingPreset> timing_preset_from_string(const std::string& text) {
  return enum_from_name<TimingPreset>(timing_preset_names(), text);
}

const std::vector<std::string>& timing_keys() {
  static const std::vector<std::string> keys = {
      "preset",        "mode",      "target_ci",         "min_samples", "max_samples", "min_time_s",
      "max_time_s",    "warmup",    "warmup_time_s",     "samples_per_round", "input_sets"};
  return keys;
}

namespace {

// One preset's values for one device kind (every key but mode).
struct TimingDefaults {
  double target_ci;
  int min_samples, max_samples;
  double min_time_s, max_time_s;
  int warmup;
  double warmup_time_s;
  int samples_per_round, input_sets;
};

TimingDefaults defaults_for(TimingPreset preset, bool gpu) {
  if (preset == TimingPreset::full) {
    // GPU: >= 5 rounds of 10, >= 250 ms of warmup per variant (clock ramp-up takes ~400 ms over
    // the three), 8 s cap. CPU: the Triton interpreter takes ~0.1-0.3 s a call, so small budgets.
    if (gpu) return {0.005, 50, 5000, 0.05, 8.0, 5, 0.25, 10, 4};
    return {0.005, 10, 1000, 0.0, 5.0, 2, 0.0, 5, 2};
  }
  // rl: +-2% is finer than the differences a reward separates (RL rewards speedup tiers or
  // log-speedups; a 2% step is noise to them) and needs ~25x fewer samples than +-0.5% at the
  // same spread (the half-width goes as 1/sqrt(n)). GPU: >= 4 rounds of 5 samples, 100 ms of
  // warm-up (the clocks are already up: workers time back to back), 1 s cap. The input sets stay
  // as in `full`: the timed-call check's rotation needs them.
  if (gpu) return {0.02, 20, 400, 0.01, 1.0, 3, 0.1, 5, 4};
  return {0.02, 6, 200, 0.0, 1.0, 1, 0.0, 3, 2};
}

}  // namespace

ResolvedTiming resolve_timing(const TimingConfig& c, DeviceKind kind) {
  const TimingDefaults d = defaults_for(c.preset, kind == DeviceKind::cuda);
  ResolvedTiming r;
  r.preset = c.preset;
  r.mode = c.mode;
  r.target_ci = c.target_ci.value_or(d.target_ci);
  r.min_samples = c.min_samples.value_or(d.min_samples);
  r.max_samples = c.max_samples.value_or(d.max_samples);
  r.min_time_s = c.min_time_s.value_or(d.min_time_s);
  r.max_time_s = c.max_time_s.value_or(d.max_time_s);
  r.warmup = c.warmup.value_or(d.warmup);
  r.warmup_time_s = c.warmup_time_s.value_or(d.warmup_time_s);
  r.samples_per_round = c.samples_per_round.value_or(d.samples_per_round);
  r.input_sets = c.input_sets.value_or(d.input_sets);
  if (r.max_samples < r.min_samples) r.max_samples = r.min_samples;
  return r;
}

}  // namespace kbench
