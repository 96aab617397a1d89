#include "measure/interleaved_protocol.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "core/seconds_since.hpp"
#include "measure/confidence.hpp"
#include "measure/sample_stats.hpp"

namespace kbench {
namespace {

using Clock = std::chrono::steady_clock;

// The timed calls of one sample, per the mode.
TimedSample time_calls(Timer& timer, const ProtocolVariant& variant, int input_set, TimingMode mode,
                       int calls_per_sample, bool blocking, const ProtocolHooks& hooks) {
  if (mode == TimingMode::hot) {
    TimedSample s = timer.time(
        [&] {
          for (int i = 0; i < calls_per_sample; ++i) variant.call(input_set);
        },
        false);
    s.ms /= calls_per_sample;
    return s;
  }
  if (hooks.flush && mode != TimingMode::graph) hooks.flush();
  return timer.time([&] { variant.call(input_set); }, blocking);
}

// One sample of `variant` on `input_set`, per the mode, with the variant's hooks around it: the
// timer has synchronised the device when `after_sample` runs.
TimedSample take_sample(Timer& timer, const ProtocolVariant& variant, int input_set, TimingMode mode,
                        int calls_per_sample, bool blocking, const ProtocolHooks& hooks, bool warmup) {
  if (variant.before_sample) variant.before_sample(input_set);
  const TimedSample s = time_calls(timer, variant, input_set, mode, calls_per_sample, blocking, hooks);
  if (variant.after_sample) variant.after_sample(warmup);
  return s;
}

// The order of variants in each round. Cycling through every permutation (up to 4 variants)
// makes each variant follow each other one equally often, so what a predecessor leaves behind
// (caches, clocks) cannot favour one variant; a plain rotation cannot do that for 3 or more.
std::vector<std::vector<std::size_t>> round_orders(std::size_t count) {
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::vector<std::size_t>> orders;
  if (count <= 4) {
    do orders.push_back(order);
    while (std::next_permutation(order.begin(), order.end()));
  } else {
    for (std::size_t shift = 0; shift < count; ++shift) {
      orders.push_back(order);
      std::rotate(order.begin(), order.begin() + 1, order.end());
    }
  }
  return orders;
}

}  // namespace

double relative_ci_half_width(const std::vector<double>& samples) {
  if (samples.size() < 2) return INFINITY;
  const Interval ci = median_order_statistic_ci(samples);
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted_quantile(sorted, 0.5);
  return median > 0 ? (ci.high - ci.low) / 2 / median : INFINITY;
}

ProtocolRun run_interleaved(Timer& timer, const std::vector<ProtocolVariant>& variants,
                            const ResolvedTiming& timing, const ProtocolHooks& hooks) {
  ProtocolRun run;
  const auto start = Clock::now();
  const int sets = std::max(1, timing.input_sets);

  // Warmup after compilation: by count and by time, untimed, exercising flush and blocker.
  for (const auto& v : variants) {
    auto& record = run.variants[v.name];
    const auto warm_start = Clock::now();
    std::vector<double> estimates;
    while (record.warmup_calls < timing.warmup || seconds_since(warm_start) < timing.warmup_time_s) {
      // A variant's first call in this process may load its kernels (CUDA's lazy module loading)
      // or allocate, which waits for the device, i.e. for the blocker: it would time the blocker
      // out and leave the variant unblocked (launch overhead timed) for good. So it runs without.
      const bool blocking = record.blocking && record.warmup_calls > 0;
      const TimedSample s =
          take_sample(timer, v, record.warmup_calls % sets, TimingMode::cold, 1, blocking, hooks, true);
      ++record.warmup_calls;
      if (!s.valid) {
        record.blocking = false;
        continue;
      }
      estimates.push_back(s.ms);
      if (seconds_since(start) > timing.max_time_s / 2) break;  // a very slow variant
    }
    record.warmup_s = seconds_since(warm_start);
    if (timing.mode == TimingMode::hot && !estimates.empty()) {
      // Enough back-to-back calls that a batch lasts ~1 ms, so event resolution is negligible.
      std::sort(estimates.begin(), estimates.end());
      const double per_call = std::max(estimates[estimates.size() / 2], 1e-4);
      record.calls_per_sample = std::clamp(int(std::ceil(1.0 / per_call)), 1, std::clamp(v.max_calls_per_sample, 1, 100));
    }
  }

  std::map<std::string, int> round_cap;
  for (const auto& v : variants) round_cap[v.name] = v.max_rounds;
  const auto capped = [&](const std::string& name) {
    const int cap = round_cap[name];
    return cap > 0 && run.rounds >= cap;
  };
  auto done = [&](std::string* reason) {
    bool all_converged = run.rounds >= 3;
    bool any_full = false;
    for (const auto& [name, r] : run.variants) {
      if (capped(name)) continue;
      // A short sample gets all its rounds: the drift CI needs them (measure/baseline_drift.hpp).
      if (round_cap[name] > 0) {
        all_converged = false;
        continue;
      }
      const double measured_s =
          std::accumulate(r.samples_ms.begin(), r.samples_ms.end(), 0.0) / 1000 * r.calls_per_sample;
      all_converged = all_converged && int(r.samples_ms.size()) >= timing.min_samples &&
                      measured_s >= timing.min_time_s &&
                      relative_ci_half_width(r.samples_ms) <= timing.target_ci;
      any_full = any_full || int(r.samples_ms.size()) >= timing.max_samples;
    }
    if (all_converged) {
      *reason = "converged";
      return true;
    }
    if (any_full) {
      *reason = "max_samples";
      return true;
    }
    // The time cap never leaves a variant without samples: at least one round always runs.
    if (run.rounds >= 1 && seconds_since(start) >= timing.max_time_s) {
      *reason = "max_time";
      return true;
    }
    return false;
  };

  std::string reason;
  const auto orders = round_orders(variants.size());
  while (!done(&reason)) {
    for (std::size_t k : orders[std::size_t(run.rounds) % orders.size()]) {
      const auto& v = variants[k];
      if (capped(v.name)) continue;
      auto& record = run.variants[v.name];
      for (int i = 0; i < timing.samples_per_round; ++i) {
        const int input_set = int(record.samples_ms.size() + std::size_t(record.discarded_samples)) % sets;
        const TimedSample s = take_sample(timer, v, input_set, timing.mode, record.calls_per_sample,
                                          record.blocking, hooks, false);
        if (!s.valid) {
          ++record.discarded_samples;
          record.blocking = false;
          continue;
        }
        record.samples_ms.push_back(s.ms);
        record.rounds.push_back(run.rounds);
        if (s.offstream) ++record.offstream_samples;
      }
    }
    ++run.rounds;
    if (hooks.on_round) hooks.on_round();
  }
  run.converged = reason == "converged";
  run.stop_reason = reason;
  run.wall_s = seconds_since(start);
  return run;
}

ProtocolRun run_kernelbench_style(Timer& timer, const std::vector<ProtocolVariant>& variants,
                                  const ProtocolHooks& hooks) {
  ProtocolRun run;
  const auto start = Clock::now();
  for (const auto& v : variants) {
    auto& record = run.variants[v.name];
    for (int i = 0; i < 3; ++i) {
      if (v.before_sample) v.before_sample(0);
      v.call(0);
      if (v.after_sample) v.after_sample(true);
    }
    record.warmup_calls = 3;
    for (int i = 0; i < 100; ++i) {
      if (v.before_sample) v.before_sample(0);
      if (hooks.flush) hooks.flush();
      const TimedSample s = timer.time([&] { v.call(0); }, false);
      if (v.after_sample) v.after_sample(false);
      record.samples_ms.push_back(s.ms);
      record.rounds.push_back(0);
      if (s.offstream) ++record.offstream_samples;
    }
  }
  run.rounds = 1;
  run.converged = true;
  run.stop_reason = "fixed";
  run.wall_s = seconds_since(start);
  return run;
}

}  // namespace kbench
