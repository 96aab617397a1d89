// Timing presets (lib/measure/timing_config.cpp): what each fills in, and that keys a suite sets
// keep their values under any preset.
#include "catch.hpp"
#include "measure/timing_config.hpp"

using namespace kbench;

TEST_CASE("the full preset keeps the documented per-device defaults") {
  const auto gpu = resolve_timing(TimingConfig{}, DeviceKind::cuda);
  CHECK(gpu.preset == TimingPreset::full);
  CHECK(gpu.target_ci == 0.005);
  CHECK(gpu.min_samples == 50);
  CHECK(gpu.max_samples == 5000);
  CHECK(gpu.max_time_s == 8.0);
  CHECK(gpu.warmup_time_s == 0.25);
  CHECK(gpu.samples_per_round == 10);
  CHECK(gpu.input_sets == 4);
  const auto cpu = resolve_timing(TimingConfig{}, DeviceKind::cpu);
  CHECK(cpu.target_ci == 0.005);
  CHECK(cpu.min_samples == 10);
  CHECK(cpu.max_time_s == 5.0);
  CHECK(cpu.input_sets == 2);
}

TEST_CASE("the rl preset is shorter, states +-2%, and keeps the mode and the input sets") {
  TimingConfig config;
  config.preset = TimingPreset::rl;
  for (const auto kind : {DeviceKind::cuda, DeviceKind::cpu}) {
    const auto full = resolve_timing(TimingConfig{}, kind);
    const auto rl = resolve_timing(config, kind);
    CHECK(rl.preset == TimingPreset::rl);
    CHECK(rl.target_ci == 0.02);
    CHECK(rl.mode == full.mode);
    CHECK(rl.input_sets == full.input_sets);  // the timed-call check's rotation needs them
    CHECK(rl.max_time_s < full.max_time_s);
    CHECK(rl.min_samples < full.min_samples);
    CHECK(rl.max_samples < full.max_samples);
    CHECK(rl.max_samples >= rl.min_samples);
  }
  const auto gpu = resolve_timing(config, DeviceKind::cuda);
  CHECK(gpu.max_time_s == 1.0);
  CHECK(gpu.min_samples == 20);
  CHECK(gpu.samples_per_round == 5);
}

TEST_CASE("keys that are set win over any preset") {
  TimingConfig config;
  config.preset = TimingPreset::rl;
  config.target_ci = 0.01;
  config.max_time_s = 3.0;
  config.min_samples = 500;  // above the preset's max_samples: max is raised to it
  config.mode = TimingMode::hot;
  const auto r = resolve_timing(config, DeviceKind::cuda);
  CHECK(r.target_ci == 0.01);
  CHECK(r.max_time_s == 3.0);
  CHECK(r.min_samples == 500);
  CHECK(r.max_samples == 500);
  CHECK(r.mode == TimingMode::hot);
  CHECK(r.warmup == 3);  // unset: the preset's
}

TEST_CASE("preset names") {
  CHECK(timing_preset_names() == std::vector<std::string>{"full", "rl"});
  CHECK(timing_preset_from_string("rl") == TimingPreset::rl);
  CHECK(to_string(TimingPreset::full) == "full");
  CHECK_FALSE(timing_preset_from_string("fast"));
}
