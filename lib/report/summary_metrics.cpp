#include "report/summary_metrics.hpp"

#include <cmath>
#include <map>
#include <string>

namespace kbench {
namespace {

std::optional<double> geomean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / double(values.size()));
}

}  // namespace

SummaryMetrics compute_summary(const std::vector<JobResult>& results) {
  struct PerProblem {
    std::size_t candidates = 0, correct = 0, beats_inductor = 0;
  };
  std::map<std::string, PerProblem> problems;
  std::vector<double> vs_inductor, vs_eager;
  bool any_inductor = false;
  double beats_inductor = 0;
  SummaryMetrics m;
  m.evaluations = results.size();
  for (const auto& r : results) {
    auto& p = problems[r.job.problem_id];
    ++p.candidates;
    any_inductor = any_inductor || r.timings.count("inductor");
    if (!is_correct(r.status)) continue;
    ++p.correct;
    ++m.correct;
    if (auto s = speedup_vs(r, "inductor")) {
      vs_inductor.push_back(*s);
      if (*s > 1.0) ++p.beats_inductor;
    }
    if (auto s = speedup_vs(r, "eager")) vs_eager.push_back(*s);
  }
  m.problems = problems.size();
  for (const auto& [id, p] : problems) {
    m.pass_at_1 += double(p.correct) / double(p.candidates);
    beats_inductor += double(p.beats_inductor) / double(p.candidates);
  }
  if (m.problems) {
    m.pass_at_1 /= double(m.problems);
    if (any_inductor) m.beats_inductor = beats_inductor / double(m.problems);
  }
  m.geomean_speedup_vs_inductor = geomean(vs_inductor);
  m.geomean_speedup_vs_eager = geomean(vs_eager);
  return m;
}

}  // namespace kbench
