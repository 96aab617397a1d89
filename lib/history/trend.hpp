#pragma once
// `kbench history trend`: the stored runs of one suite as series over time, with change points
// marked (docs/nightly.md#trend).
#include <optional>
#include <string>
#include <vector>

#include "history/history_store.hpp"

namespace kbench {

struct TrendSeries {
  std::string name;  // "pass@1", "vs eager", or a candidate file
  std::string unit;  // "" (a fraction), "x" (a speedup), "ms"
  bool log_scale = false;
  std::vector<std::optional<double>> values;  // one per run; unset: not measured in that run
  std::vector<bool> changes;                  // a change point at that run
};

struct TrendChart {
  std::string title;
  std::vector<TrendSeries> series;
};

struct TrendOptions {
  std::size_t window = 5;       // K: the rolling median is over the previous K runs
  double shift_percent = 5;     // smallest change marked on times and speedups
  double pass_shift = 0.01;     // smallest change marked on pass@1 (absolute)
};

struct Trend {
  std::string suite;
  std::size_t window = 5;       // TrendOptions::window, for the rolling medians shown
  std::vector<StoredRun> runs;  // oldest first
  TrendChart pass_rate;         // pass@1
  TrendChart speedups;          // geomean speedup vs eager, vs Inductor
  std::vector<TrendChart> problems;  // per problem: each candidate's headline time in ms
};

// A value is a change point when it lies further from the median of the previous `window`
// values (at least 3 of them) than both `min_shift` and 3 robust standard deviations of those
// values (1.4826 x MAD). On a log scale the distances are of logarithms, so a 5% slowdown and
// a 5% speed-up count alike; `min_shift` is then log(1 + min_shift).
std::vector<bool> change_points(const std::vector<std::optional<double>>& values, std::size_t window,
                                double min_shift, bool log_scale);

// The median of the `window` values before index `at` (those set), when there are any.
std::optional<double> rolling_median(const std::vector<std::optional<double>>& values, std::size_t at,
                                     std::size_t window);

Trend build_trend(const std::string& suite, const std::vector<StoredRun>& runs,
                  const std::vector<StoredResult>& results, const TrendOptions& options);

}  // namespace kbench
