#include "report/summary_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

#include "measure/sample_stats.hpp"

namespace kbench {
namespace {

using Results = std::vector<JobResult>;
// Breakdowns regroup results by level and tag; pointers avoid copying their samples.
using Refs = std::vector<const JobResult*>;
// The results of each problem, by problem id (a problem's candidates are its results).
using ByProblem = std::map<std::string, std::vector<const JobResult*>>;

const std::vector<std::string> kBaselines = {"eager", "inductor"};

Refs refs_of(const Results& results) {
  Refs refs;
  for (const auto& r : results) refs.push_back(&r);
  return refs;
}

ByProblem group_by_problem(const Refs& results) {
  ByProblem problems;
  for (const JobResult* r : results) problems[r->job.problem_id].push_back(r);
  return problems;
}

// Mean over problems of the fraction of its candidates for which `qualifies` holds: every
// problem weighs the same however many candidates it has.
double mean_over_problems(const ByProblem& problems,
                          const std::function<bool(const JobResult&)>& qualifies) {
  if (problems.empty()) return 0;
  double sum = 0;
  for (const auto& [id, candidates] : problems) {
    const auto hits = std::count_if(candidates.begin(), candidates.end(),
                                    [&](const JobResult* r) { return qualifies(*r); });
    sum += double(hits) / double(candidates.size());
  }
  return sum / double(problems.size());
}

// Whether any result has timings for `baseline`: figures vs a baseline that the suite did not
// ask for are unset rather than 0.
bool timed_against(const Refs& results, const std::string& baseline) {
  return std::any_of(results.begin(), results.end(),
                     [&](const JobResult* r) { return r->timings.count(baseline) > 0; });
}

std::optional<double> geomean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / double(values.size()));
}

// Point estimate and 95% percentile bootstrap CI: evaluations are resampled with replacement.
// The seed is fixed so the same results always give the same interval.
std::optional<GeomeanEstimate> geomean_with_ci(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  const BootstrapOptions options;
  std::vector<double> logs;
  for (double v : values) logs.push_back(std::log(v));
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick(0, logs.size() - 1);
  std::vector<double> estimates;
  estimates.reserve(std::size_t(options.resamples));
  for (int b = 0; b < options.resamples; ++b) {
    double sum = 0;
    for (std::size_t i = 0; i < logs.size(); ++i) sum += logs[pick(rng)];
    estimates.push_back(std::exp(sum / double(logs.size())));
  }
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1 - options.confidence) / 2;
  return GeomeanEstimate{*geomean(values),
                         {sorted_quantile(estimates, tail), sorted_quantile(estimates, 1 - tail)}};
}

// Speedups of correct candidates vs `baseline` (those timed against it).
std::vector<double> correct_speedups(const Refs& results, const std::string& baseline) {
  std::vector<double> out;
  for (const JobResult* r : results)
    if (auto s = speedup_vs(*r, baseline); s && is_correct(r->status)) out.push_back(*s);
  return out;
}

GeomeanFigures geomean_figures(const Refs& results, const std::string& baseline) {
  std::vector<double> correct, all;
  for (const JobResult* r : results) {
    if (!is_correct(r->status)) {
      all.push_back(1.0);  // a failure falls back to the reference
    } else if (auto s = speedup_vs(*r, baseline)) {
      correct.push_back(*s);
      all.push_back(*s);
    }  // correct but not timed against this baseline: no speedup to count either way
  }
  return {geomean_with_ci(correct), geomean_with_ci(all)};
}

// KernelBench's fast_p counts a correct candidate whose point speedup is > p; the significant
// figure asks the 95% CI to lie above p, so a copy of the reference never counts as faster.
bool fast_point(const JobResult& r, const std::string& baseline, double p) {
  if (!is_correct(r.status)) return false;
  if (p == 0) return true;
  const auto it = r.speedups.find(baseline);
  return it != r.speedups.end() && it->second.value > p;
}

bool fast_significant(const JobResult& r, const std::string& baseline, double p) {
  if (!is_correct(r.status)) return false;
  if (p == 0) return true;
  const auto it = r.speedups.find(baseline);
  return it != r.speedups.end() && it->second.ci && it->second.ci->low > p;
}

FastP fast_p_figures(const ByProblem& problems, const std::string& baseline) {
  FastP f;
  for (const auto& [p, label] : fast_p_thresholds()) {
    f.point[label] =
        mean_over_problems(problems, [&](const JobResult& r) { return fast_point(r, baseline, p); });
    f.significant[label] = mean_over_problems(
        problems, [&](const JobResult& r) { return fast_significant(r, baseline, p); });
  }
  return f;
}

std::map<int, double> pass_at_k_figures(const ByProblem& problems) {
  std::map<int, double> out;
  for (int k : {1, 5, 10}) {
    double sum = 0;
    std::size_t counted = 0;
    for (const auto& [id, candidates] : problems) {
      const std::size_t n = candidates.size();
      if (n < std::size_t(k)) continue;  // pass@k is undefined with fewer than k samples
      const auto c = std::size_t(std::count_if(candidates.begin(), candidates.end(),
                                               [](const JobResult* r) { return is_correct(r->status); }));
      sum += pass_at_k(n, c, std::size_t(k));
      ++counted;
    }
    if (counted) out[k] = sum / double(counted);
    else if (k == 1) out[k] = 0;  // pass@1 is always reported, 0 for an empty run
  }
  return out;
}

GroupMetrics group_metrics(const Refs& results) {
  const ByProblem problems = group_by_problem(results);
  GroupMetrics m;
  m.problems = problems.size();
  m.evaluations = results.size();
  m.correct = std::size_t(std::count_if(results.begin(), results.end(),
                                        [](const JobResult* r) { return is_correct(r->status); }));
  m.pass_at_1 = mean_over_problems(problems, [](const JobResult& r) { return is_correct(r.status); });
  if (!problems.empty() && timed_against(results, "inductor"))
    m.beats_inductor = mean_over_problems(
        problems, [](const JobResult& r) { return fast_point(r, "inductor", 1.0); });
  m.geomean_speedup_vs_inductor = geomean(correct_speedups(results, "inductor"));
  return m;
}

template <typename Key>
std::map<Key, GroupMetrics> breakdown(const std::map<Key, Refs>& groups) {
  std::map<Key, GroupMetrics> out;
  for (const auto& [key, results] : groups) out[key] = group_metrics(results);
  return out;
}

}  // namespace

const std::vector<std::pair<double, std::string>>& fast_p_thresholds() {
  static const std::vector<std::pair<double, std::string>> thresholds = {
      {0.0, "0"}, {0.5, "0.5"}, {0.8, "0.8"}, {1.0, "1"}, {1.5, "1.5"}, {2.0, "2"}};
  return thresholds;
}

// 1 - C(n-c, k) / C(n, k), as a product so that no binomial coefficient overflows.
double pass_at_k(std::size_t n, std::size_t c, std::size_t k) {
  if (k == 0 || n < k || c > n) throw std::invalid_argument("pass@k needs 0 < k <= n and c <= n");
  if (n - c < k) return 1.0;  // every k-subset contains a correct sample
  double all_fail = 1.0;
  for (std::size_t i = n - c + 1; i <= n; ++i) all_fail *= 1.0 - double(k) / double(i);
  return 1.0 - all_fail;
}

GroupMetrics compute_group(const Results& results) { return group_metrics(refs_of(results)); }

SummaryMetrics compute_summary(const Results& results) {
  const Refs refs = refs_of(results);
  const ByProblem problems = group_by_problem(refs);
  SummaryMetrics m;
  static_cast<GroupMetrics&>(m) = group_metrics(refs);
  m.geomean_speedup_vs_eager = geomean(correct_speedups(refs, "eager"));
  m.pass_at_k = pass_at_k_figures(problems);
  for (const auto& baseline : kBaselines) {
    m.fast_p[baseline] = std::nullopt;
    m.geomean[baseline] = std::nullopt;
    if (problems.empty() || !timed_against(refs, baseline)) continue;
    m.fast_p[baseline] = fast_p_figures(problems, baseline);
    m.geomean[baseline] = geomean_figures(refs, baseline);
  }
  if (m.fast_p["inductor"]) m.beats_inductor_significant = m.fast_p["inductor"]->significant["1"];
  std::map<int, Refs> levels;
  std::map<std::string, Refs> tags;
  for (const JobResult* r : refs) {
    levels[r->job.level].push_back(r);
    for (const auto& tag : r->job.tags) tags[tag].push_back(r);
  }
  m.by_level = breakdown(levels);
  m.by_tag = breakdown(tags);
  return m;
}

}  // namespace kbench
