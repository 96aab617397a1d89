#include "history/trend.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace kbench {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<double> previous(const std::vector<std::optional<double>>& values, std::size_t at,
                             std::size_t window) {
  std::vector<double> out;
  for (std::size_t i = at; i-- > 0 && out.size() < window;)
    if (values[i]) out.push_back(*values[i]);
  return out;
}

TrendSeries series(std::string name, std::string unit, bool log_scale,
                   std::vector<std::optional<double>> values, const TrendOptions& options, double min_shift) {
  TrendSeries s{std::move(name), std::move(unit), log_scale, std::move(values), {}};
  s.changes = change_points(s.values, options.window, min_shift, log_scale);
  return s;
}

}  // namespace

std::optional<double> rolling_median(const std::vector<std::optional<double>>& values, std::size_t at,
                                     std::size_t window) {
  const auto prev = previous(values, at, window);
  if (prev.empty()) return std::nullopt;
  return median_of(prev);
}

std::vector<bool> change_points(const std::vector<std::optional<double>>& values, std::size_t window,
                                double min_shift, bool log_scale) {
  std::vector<bool> out(values.size(), false);
  auto scale = [&](double v) { return log_scale ? std::log(std::max(v, 1e-300)) : v; };
  const double shift = log_scale ? std::log1p(min_shift) : min_shift;
  for (std::size_t t = 0; t < values.size(); ++t) {
    if (!values[t]) continue;
    std::vector<double> prev = previous(values, t, window);
    if (prev.size() < 3) continue;  // too little history to call anything a change
    for (double& v : prev) v = scale(v);
    const double m = median_of(prev);
    std::vector<double> deviations;
    for (double v : prev) deviations.push_back(std::abs(v - m));
    const double sigma = 1.4826 * median_of(deviations);
    const double distance = std::abs(scale(*values[t]) - m);
    // The tiny tolerance keeps a value exactly at min_shift (e.g. pass@1 moving by one problem
    // of 100) from flipping on rounding.
    out[t] = distance > std::max(shift, 3 * sigma) + 1e-12;
  }
  return out;
}

Trend build_trend(const std::string& suite, const std::vector<StoredRun>& runs,
                  const std::vector<StoredResult>& results, const TrendOptions& options) {
  Trend trend;
  trend.suite = suite;
  trend.runs = runs;
  trend.window = options.window;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < runs.size(); ++i) index[runs[i].run_key] = i;
  const double time_shift = options.shift_percent / 100;

  std::vector<std::optional<double>> pass, eager, inductor;
  for (const auto& r : runs) {
    pass.emplace_back(r.pass_at_1);
    eager.push_back(r.geomean_vs_eager);
    inductor.push_back(r.geomean_vs_inductor);
  }
  trend.pass_rate = {"pass@1", {series("pass@1", "", false, pass, options, options.pass_shift)}};
  trend.speedups.title = "geomean speedup (correct candidates)";
  trend.speedups.series.push_back(series("vs eager", "x", true, eager, options, time_shift));
  if (std::any_of(inductor.begin(), inductor.end(), [](const auto& v) { return v.has_value(); }))
    trend.speedups.series.push_back(series("vs Inductor", "x", true, inductor, options, time_shift));

  // Per problem, per candidate: the headline time of each run where it was correct.
  std::map<std::string, std::map<std::string, std::vector<std::optional<double>>>> times;
  for (const auto& r : results) {
    const auto it = index.find(r.run_key);
    if (it == index.end()) continue;
    auto& values = times[r.problem][r.candidate];
    values.resize(runs.size());
    if (r.status == "ok" && r.candidate_ms) values[it->second] = r.candidate_ms;
  }
  for (auto& [problem, candidates] : times) {
    TrendChart chart{problem + ": candidate time", {}};
    for (auto& [candidate, values] : candidates)
      chart.series.push_back(series(candidate, "ms", true, values, options, time_shift));
    trend.problems.push_back(std::move(chart));
  }
  return trend;
}

}  // namespace kbench
