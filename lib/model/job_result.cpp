#include "model/job_result.hpp"


namespace kbench {

std::string to_string(SpeedupVerdict verdict) {
  switch (verdict) {
    case SpeedupVerdict::faster: return "FASTER";
    case SpeedupVerdict::slower: return "SLOWER";
    case SpeedupVerdict::same: return "SAME";
    case SpeedupVerdict::ambiguous: return "AMBIGUOUS";
  }
  return "AMBIGUOUS";
}

SpeedupVerdict classify_speedup(double value, const Interval& ci) {
  constexpr double kMargin = 0.02;
  if (ci.low > 1 && value >= 1 + kMargin) return SpeedupVerdict::faster;
  if (ci.high < 1 && value <= 1 - kMargin) return SpeedupVerdict::slower;
  if (ci.low >= 1 - kMargin && ci.high <= 1 + kMargin) return SpeedupVerdict::same;
  return SpeedupVerdict::ambiguous;
}

RoundSamples samples_by_round(const Measurement& m) {
  std::map<int, std::vector<double>> grouped;
  for (std::size_t i = 0; i < m.samples_ms.size(); ++i)
    grouped[i < m.rounds.size() ? m.rounds[i] : 0].push_back(m.samples_ms[i]);
  RoundSamples rounds;
  for (auto& [round, samples] : grouped) rounds.push_back(std::move(samples));
  return rounds;
}

namespace {

// Rounds in which both variants have samples, aligned, for the paired ratio bootstrap.
std::pair<RoundSamples, RoundSamples> paired_rounds(const Measurement& a, const Measurement& b) {
  std::map<int, std::vector<double>> ga, gb;
  for (std::size_t i = 0; i < a.samples_ms.size(); ++i) ga[a.rounds.at(i)].push_back(a.samples_ms[i]);
  for (std::size_t i = 0; i < b.samples_ms.size(); ++i) gb[b.rounds.at(i)].push_back(b.samples_ms[i]);
  std::pair<RoundSamples, RoundSamples> out;
  for (auto& [round, samples] : ga) {
    auto other = gb.find(round);
    if (other == gb.end()) continue;
    out.first.push_back(std::move(samples));
    out.second.push_back(std::move(other->second));
  }
  return out;
}

}  // namespace

void derive_statistics(JobResult& result) {
  for (auto& [name, m] : result.timings) {
    if (m.rounds.size() != m.samples_ms.size()) m.rounds.assign(m.samples_ms.size(), 0);
    m.stats = summarize(m.samples_ms);
    m.median_ci.reset();
    if (m.statistic == "median") m.median_ci = bootstrap_median_ci(samples_by_round(m));
  }
  result.speedups.clear();
  if (!is_correct(result.status)) return;
  const auto candidate = result.timings.find("candidate");
  if (candidate == result.timings.end() || !(candidate->second.headline_ms() > 0)) return;
  for (const auto& [name, base] : result.timings) {
    if (name == "candidate") continue;
    SpeedupEstimate estimate;
    estimate.value = base.headline_ms() / candidate->second.headline_ms();
    if (base.statistic == "median" && candidate->second.statistic == "median" && result.kept_reference &&
        result.kept_reference->kept) {
      // Kept baselines were timed in another run: their rounds pair with nothing of the
      // candidate's, so the two are resampled independently (a wider, honest interval).
      estimate.ci = bootstrap_independent_ratio_ci(samples_by_round(base), samples_by_round(candidate->second));
      estimate.verdict = classify_speedup(estimate.value, *estimate.ci);
    } else if (base.statistic == "median" && candidate->second.statistic == "median") {
      const auto [top, bottom] = paired_rounds(base, candidate->second);
      if (!top.empty()) {
        estimate.ci = bootstrap_ratio_ci(top, bottom);
        estimate.verdict = classify_speedup(estimate.value, *estimate.ci);
      }
    }
    result.speedups[name] = estimate;
  }
}

std::optional<double> speedup_vs(const JobResult& result, const std::string& baseline) {
  const auto it = result.speedups.find(baseline);
  if (it == result.speedups.end()) return std::nullopt;
  return it->second.value;
}

}  // namespace kbench
