#pragma once
// How samples are taken (suite `timing:` block, CLI overrides). Unset fields take per-device
// defaults (resolve_timing), because a CPU run through Triton's interpreter and an H200 run
// need very different budgets.
#include <optional>
#include <string>
#include <vector>

#include "device/device.hpp"

namespace kbench {

enum class TimingMode {
  cold,         // L2 flushed before every sample (outside the interval), blocking kernel: headline
  hot,          // back-to-back calls in one interval, no flush; time per call
  graph,        // CUDA-graph replay of one call (falls back to cold where capture fails)
  kernelbench,  // KernelBench's protocol, for comparison: 3 warmups, 100 trials, 256 MiB flush,
                // mean, variants one after another
};

std::string to_string(TimingMode mode);
std::optional<TimingMode> timing_mode_from_string(const std::string& text);
const std::vector<std::string>& timing_mode_names();

// Which table fills the keys a suite leaves unset. `full`: the headline protocol (+-0.5% median
// CIs, up to 8 s per job on CUDA). `rl`: an RL reward loop's budget: fewer, shorter samples, a
// stated +-2% median CI (docs/timing.md#presets). The mode, the flush, the input sets and every
// check are the same in both: only how long the protocol may run changes.
enum class TimingPreset { full, rl };
std::string to_string(TimingPreset preset);
std::optional<TimingPreset> timing_preset_from_string(const std::string& text);
const std::vector<std::string>& timing_preset_names();

struct TimingConfig {
  TimingPreset preset = TimingPreset::full;  // the defaults of every unset key below
  TimingMode mode = TimingMode::cold;
  std::optional<double> target_ci;  // stop when every median's 95% CI half-width <= this (relative)
  std::optional<int> min_samples, max_samples;          // per variant
  std::optional<double> min_time_s;                     // measured time per variant
  std::optional<double> max_time_s;                     // wall time of the whole protocol
  std::optional<int> warmup;                            // untimed calls per variant, at least
  std::optional<double> warmup_time_s;                  // and at least this long
  std::optional<int> samples_per_round;
  std::optional<int> input_sets;                        // rotated across samples
};

// Every field set.
struct ResolvedTiming {
  TimingPreset preset = TimingPreset::full;
  TimingMode mode = TimingMode::cold;
  double target_ci = 0.005;
  int min_samples = 0, max_samples = 0;
  double min_time_s = 0, max_time_s = 0;
  int warmup = 0;
  double warmup_time_s = 0;
  int samples_per_round = 0;
  int input_sets = 1;
};

ResolvedTiming resolve_timing(const TimingConfig& config, DeviceKind kind);

// The names accepted in a `timing:` block.
const std::vector<std::string>& timing_keys();

}  // namespace kbench
