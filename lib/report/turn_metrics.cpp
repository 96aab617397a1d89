#include "report/turn_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "report/summary_metrics.hpp"

namespace kbench {
namespace {

// What a conversation has achieved so far.
struct Best {
  bool correct = false;
  std::map<std::string, double> speedup;  // best point speedup of a correct candidate, per baseline
};

}  // namespace

std::vector<TurnFigures> turn_metrics(const std::vector<JobResult>& results) {
  int last_turn = 0;
  std::set<std::string> baselines;
  // problem -> sample -> its results, by turn
  std::map<std::string, std::map<int, std::vector<const JobResult*>>> conversations;
  for (const auto& r : results) {
    if (!r.job.origin) continue;
    last_turn = std::max(last_turn, r.job.origin->turn);
    conversations[r.job.problem_id][r.job.origin->sample].push_back(&r);
    for (const auto& [name, speedup] : r.speedups) baselines.insert(name);
  }
  std::vector<TurnFigures> turns;
  for (int t = 1; t <= last_turn; ++t) {
    TurnFigures figures;
    figures.turn = t;
    for (const auto& r : results)
      if (r.job.origin && r.job.origin->turn == t) {
        ++figures.evaluations;
        ++figures.statuses[to_string(r.status)];
      }
    std::map<std::string, std::map<std::string, double>> fast_sum;
    for (const auto& [problem, samples] : conversations) {
      std::size_t correct = 0;
      std::map<std::string, std::map<std::string, std::size_t>> fast;
      for (const auto& [sample, turn_results] : samples) {
        Best best;
        for (const JobResult* r : turn_results) {
          if (r->job.origin->turn > t || !is_correct(r->status)) continue;
          best.correct = true;
          for (const auto& baseline : baselines)
            if (const auto s = speedup_vs(*r, baseline))
              best.speedup[baseline] = std::max(best.speedup.count(baseline) ? best.speedup[baseline] : 0.0, *s);
        }
        if (best.correct) ++correct;
        for (const auto& baseline : baselines)
          for (const auto& [p, label] : fast_p_thresholds()) {
            const auto it = best.speedup.find(baseline);
            const bool beats = best.correct && (p == 0 || (it != best.speedup.end() && it->second > p));
            fast[baseline][label] += beats ? 1 : 0;
          }
      }
      const double n = double(samples.size());
      figures.pass_at_1 += double(correct) / n;
      for (const auto& [baseline, by_label] : fast)
        for (const auto& [label, count] : by_label) fast_sum[baseline][label] += double(count) / n;
    }
    const double problems = double(std::max<std::size_t>(1, conversations.size()));
    figures.pass_at_1 /= problems;
    for (const auto& [baseline, by_label] : fast_sum)
      for (const auto& [label, sum] : by_label) figures.fast_p[baseline][label] = sum / problems;
    turns.push_back(std::move(figures));
  }
  return turns;
}

std::string turn_metrics_text(const std::vector<TurnFigures>& turns) {
  std::string out;
  for (const auto& t : turns) {
    std::string statuses;
    for (const auto& [status, count] : t.statuses)
      statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", status, count);
    out += fmt::format("turn {}: {} evaluations ({}); pass@1 {:.3f}", t.turn, t.evaluations, statuses, t.pass_at_1);
    for (const auto& [baseline, by_label] : t.fast_p)
      if (by_label.count("1")) out += fmt::format("; fast_1 vs {} {:.3f}", baseline, by_label.at("1"));
    out += "\n";
  }
  return out;
}

}  // namespace kbench
