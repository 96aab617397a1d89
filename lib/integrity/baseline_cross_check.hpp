#pragma once
// An isolated candidate's baseline samples against trusted ones (docs/threat-model.md). The
// candidate worker times the baselines interleaved with the candidate, in the process where
// native code can forge any sample: a baseline made to look slower inflates the speedup. The
// reference worker (never loads candidate code) times the same baselines on the same inputs
// before; the judge compares. Only a reported baseline *slower* than the trusted one matters
// (a faster one only costs the candidate).
#include <optional>
#include <string>
#include <vector>

namespace kbench {

struct BaselineRule {
  // Two processes, minutes apart, the GPU held exclusively by each: medians agree within a
  // few percent; 1.5x leaves room for clocks and a quick trusted run, the margin for tiny calls.
  double factor = 1.5;
  double margin_ms = 0.02;
};

// nullopt when median(reported) <= factor * median(trusted) + margin (or either is empty);
// otherwise the evidence, one line naming `baseline`.
std::optional<std::string> baseline_disagreement(const std::string& baseline, const std::vector<double>& reported_ms,
                                                 const std::vector<double>& trusted_ms, const BaselineRule& rule = {});

}  // namespace kbench
