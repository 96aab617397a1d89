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
  // Inductor's: each process compiles (and may autotune) its own.
  double factor = 1.5;
  double margin_ms = 0.02;
};

// The eager baseline runs the same kernels in both processes: on the H200 its reported/trusted
// medians were 0.997-1.020 over 20 blinded jobs (26 us to 2.7 ms calls, 2026-12-02/03). 1.10 and
// 5 us keep five times that spread and stop a candidate that slows the eager baseline it is
// timed beside (e.g. a layer of the reference swapped for a slower one) from 1.1x on.
inline constexpr BaselineRule kEagerBaselineRule{1.10, 0.005};

// The rule for a baseline by name: kEagerBaselineRule for "eager", else the default.
BaselineRule baseline_rule(const std::string& baseline);

// nullopt when median(reported) <= factor * median(trusted) + margin (or either is empty);
// otherwise the evidence, one line naming `baseline`.
std::optional<std::string> baseline_disagreement(const std::string& baseline, const std::vector<double>& reported_ms,
                                                 const std::vector<double>& trusted_ms, const BaselineRule& rule = {});

}  // namespace kbench
