#include "report/compare.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "core/error.hpp"
#include "report/report_merge.hpp"

namespace kbench {
namespace {

using PairKey = std::pair<std::string, std::string>;

const Measurement* candidate_timing(const JobResult& r) {
  const auto it = r.timings.find("candidate");
  return it == r.timings.end() || !(it->second.headline_ms() > 0) ? nullptr : &it->second;
}

bool timed_against(const RunReport& report, const std::string& baseline) {
  for (const auto& r : report.results)
    if (r.speedups.count(baseline)) return true;
  return false;
}

std::string choose_baseline(const RunReport& base, const RunReport& next, const CompareOptions& options) {
  if (options.baseline) {
    if (*options.baseline != "eager" && *options.baseline != "inductor")
      throw InputError(fmt::format("--baseline '{}': use eager or inductor", *options.baseline));
    return *options.baseline;
  }
  return timed_against(base, "inductor") && timed_against(next, "inductor") ? "inductor" : "eager";
}

// Both correct: the candidate's own time, and its speedup vs the chosen baseline.
void fill_timing_change(const JobResult& b, const JobResult& n, const std::string& baseline,
                        PairChange& pair) {
  const Measurement* tb = candidate_timing(b);
  const Measurement* tn = candidate_timing(n);
  if (tb && tn) {
    pair.base_ms = tb->headline_ms();
    pair.new_ms = tn->headline_ms();
    pair.time_ratio = *pair.new_ms / *pair.base_ms;
    pair.verdict = SpeedupVerdict::ambiguous;  // no CI for mean-statistic (kernelbench) timings
    if (tb->statistic == "median" && tn->statistic == "median") {
      pair.time_ratio_ci = bootstrap_independent_ratio_ci(samples_by_round(*tn), samples_by_round(*tb));
      pair.verdict = classify_time_ratio(*pair.time_ratio, *pair.time_ratio_ci);
    }
  }
  pair.base_speedup = speedup_vs(b, baseline);
  pair.new_speedup = speedup_vs(n, baseline);
  if (pair.base_speedup && pair.new_speedup && *pair.base_speedup > 0)
    pair.speedup_change = *pair.new_speedup / *pair.base_speedup;
}

PairChange pair_change(const JobResult* b, const JobResult* n, const std::string& baseline) {
  PairChange pair;
  const JobResult& any = b ? *b : *n;
  pair.problem = any.job.problem_id;
  pair.candidate = any.job.candidate;
  if (b) pair.base_status = b->status;
  if (n) pair.new_status = n->status;
  if (!n) pair.kind = PairKind::removed;
  else if (!b) pair.kind = PairKind::added;
  else if (is_correct(b->status) && is_correct(n->status)) pair.kind = PairKind::compared;
  else if (is_correct(b->status)) pair.kind = PairKind::newly_failing;
  else if (is_correct(n->status)) pair.kind = PairKind::newly_passing;
  else pair.kind = PairKind::still_failing;
  if (pair.kind == PairKind::compared) fill_timing_change(*b, *n, baseline, pair);
  return pair;
}

std::map<PairKey, const JobResult*> index(const RunReport& report, const std::string& name) {
  std::map<PairKey, const JobResult*> out;
  for (const auto& r : report.results)
    if (!out.emplace(PairKey{r.job.problem_id, r.job.candidate}, &r).second)
      throw InputError(fmt::format("{}: {} / {} appears twice", name, r.job.problem_id, r.job.candidate));
  return out;
}

}  // namespace

std::string to_string(PairKind kind) {
  switch (kind) {
    case PairKind::compared: return "compared";
    case PairKind::newly_failing: return "newly_failing";
    case PairKind::newly_passing: return "newly_passing";
    case PairKind::still_failing: return "still_failing";
    case PairKind::added: return "added";
    case PairKind::removed: return "removed";
  }
  return "compared";
}

SpeedupVerdict classify_time_ratio(double ratio, const Interval& ci) {
  // A time ratio above 1 is a speedup below 1: classify_speedup's rule and margin, sides swapped.
  switch (const auto verdict = classify_speedup(ratio, ci)) {
    case SpeedupVerdict::faster: return SpeedupVerdict::slower;
    case SpeedupVerdict::slower: return SpeedupVerdict::faster;
    default: return verdict;
  }
}

Comparison compare_reports(const RunReport& base, const std::string& base_name, const RunReport& next,
                           const std::string& next_name, const CompareOptions& options) {
  if (!options.ignore_env) check_same_environment(base, base_name, next, next_name);
  Comparison out;
  out.baseline = choose_baseline(base, next, options);
  const auto base_index = index(base, base_name);
  const auto next_index = index(next, next_name);
  for (const auto& r : base.results) {
    const auto it = next_index.find({r.job.problem_id, r.job.candidate});
    out.pairs.push_back(pair_change(&r, it == next_index.end() ? nullptr : it->second, out.baseline));
  }
  for (const auto& r : next.results)
    if (!base_index.count({r.job.problem_id, r.job.candidate}))
      out.pairs.push_back(pair_change(nullptr, &r, out.baseline));
  out.base_summary = compute_summary(base.results);
  out.new_summary = compute_summary(next.results);
  return out;
}

bool is_regression(const PairChange& pair, double percent) {
  if (pair.kind == PairKind::newly_failing) return true;
  return pair.verdict == SpeedupVerdict::slower && pair.time_ratio &&
         *pair.time_ratio >= 1 + percent / 100;
}

void check_gate_inputs(const RunReport& base, const std::string& base_name, const RunReport& next,
                       const std::string& next_name, const Comparison& comparison,
                       const GateOptions& options) {
  if (!options.allow_incomplete)
    for (const auto& [name, report] : {std::pair{&base_name, &base}, std::pair{&next_name, &next}})
      if (report->results.size() < report->planned_jobs)
        throw InputError(fmt::format("{}: incomplete run ({} of {} evaluations); a regression gate "
                                     "cannot pass on missing results. Finish it (kbench run --resume) "
                                     "or pass --allow-incomplete",
                                     *name, report->results.size(), report->planned_jobs));
  if (!options.allow_suite_mismatch && base.suite_name != next.suite_name)
    throw InputError(fmt::format("{} is suite '{}' but {} is suite '{}'; pass --allow-suite-mismatch "
                                 "to gate on them anyway",
                                 base_name, base.suite_name, next_name, next.suite_name));
  if (options.allow_plan_change) return;
  std::size_t removed = 0, added = 0;
  const PairChange* example = nullptr;
  for (const auto& pair : comparison.pairs) {
    if (pair.kind != PairKind::removed && pair.kind != PairKind::added) continue;
    (pair.kind == PairKind::removed ? removed : added) += 1;
    if (!example || (pair.kind == PairKind::removed && example->kind != PairKind::removed)) example = &pair;
  }
  if (example)
    throw InputError(fmt::format("the plans differ: {} evaluation(s) of {} are missing from {} and "
                                 "{} are new (e.g. {} / {}, {}); pass --allow-plan-change to gate "
                                 "on the evaluations both have",
                                 removed, base_name, next_name, added, example->problem,
                                 example->candidate, to_string(example->kind)));
}

bool has_regression(const Comparison& comparison, double percent) {
  for (const auto& pair : comparison.pairs)
    if (is_regression(pair, percent)) return true;
  return false;
}

}  // namespace kbench
