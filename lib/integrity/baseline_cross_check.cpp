#include "integrity/baseline_cross_check.hpp"

#include <fmt/format.h>

#include "measure/sample_stats.hpp"

namespace kbench {

BaselineRule baseline_rule(const std::string& baseline, bool cuda) {
  if (!cuda) return kCpuBaselineRule;
  return baseline == "eager" ? kEagerBaselineRule : BaselineRule{};
}

std::optional<std::string> baseline_disagreement(const std::string& baseline, const std::vector<double>& reported_ms,
                                                 const std::vector<double>& trusted_ms, const BaselineRule& rule) {
  if (reported_ms.empty() || trusted_ms.empty()) return std::nullopt;
  const double reported = summarize(reported_ms).median;
  const double trusted = summarize(trusted_ms).median;
  const double allowed = rule.factor * trusted + rule.margin_ms;
  if (reported <= allowed) return std::nullopt;
  return fmt::format(
      "the candidate's process reported the {} baseline at a median {:.4g} ms; the reference worker timed it at "
      "{:.4g} ms on the same inputs (at most {:.4g} ms allowed: {:g} x + {:g} ms): {:.3g}x slower",
      baseline, reported, trusted, allowed, rule.factor, rule.margin_ms, reported / trusted);
}

}  // namespace kbench
