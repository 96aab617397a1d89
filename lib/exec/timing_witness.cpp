#include "exec/timing_witness.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "measure/sample_stats.hpp"

namespace kbench {

namespace {
constexpr double kMinWitnessCalls = 16;
constexpr double kMaxWitnessCalls = 256;
}  // namespace

std::size_t witness_call_count(double call_s, double overhead_s, const WitnessRule& rule) {
  double count = kMinWitnessCalls;
  if (call_s > (rule.overhead_factor - 1) * overhead_s)
    count = std::clamp(std::ceil(rule.calls_s / std::max(1e-6, call_s)), kMinWitnessCalls, kMaxWitnessCalls);
  const double fit = std::floor(rule.max_window_s / std::max(1e-6, call_s + overhead_s));
  return std::size_t(std::max(2.0, std::min(count, fit)));
}

WitnessRule WitnessRule::for_device(bool cuda) {
  WitnessRule rule;
  if (!cuda) return rule;
  rule.margin_s = 0.15;
  rule.overhead_factor = 1.25;
  rule.calls_s = 0.4;
  rule.max_window_s = 0.6;
  return rule;
}

WitnessRule WitnessRule::for_second_window() const {
  WitnessRule rule = *this;
  rule.calls_s *= 2;
  rule.max_window_s *= 2;
  return rule;
}

std::optional<std::string> witness_refusal(const std::vector<double>& samples_ms, int calls, double wall_s,
                                           double overhead_s, const WitnessRule& rule, double host_wait_s) {
  if (samples_ms.empty() || calls <= 0) return std::nullopt;  // nothing claimed, nothing to bound
  const double median_s = summarize(samples_ms).median / 1000;
  const double allowed_s = rule.factor * calls * median_s + rule.overhead_factor * overhead_s + rule.margin_s;
  const double worked_s = wall_s - std::max(0.0, host_wait_s);
  if (worked_s <= allowed_s) return std::nullopt;
  return fmt::format(
      "{} witness calls on fresh inputs took {:.4g} s on the controller's clock ({:.3g} s of it waiting for a CPU "
      "other work held); the claimed median sample {:.4g} ms allows at most {:.4g} s ({} x {:g} x median + {:g} x "
      "{:.3g} s of input and output work + {:g} s): the calls take about {:.3g}x the time claimed",
      calls, wall_s, std::max(0.0, host_wait_s), median_s * 1000, allowed_s, calls, rule.factor, rule.overhead_factor,
      overhead_s, rule.margin_s, (worked_s - overhead_s) / (calls * median_s));
}

}  // namespace kbench
