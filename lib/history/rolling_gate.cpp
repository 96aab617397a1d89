#include "history/rolling_gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/results_reader.hpp"

namespace kbench {
namespace {

std::string run_name(const StoredRun& run) { return run.label.empty() ? run.started_at : run.label; }

RunReport load_run(HistoryStore& store, const StoredRun& run) {
  return read_results_json(nlohmann::json::parse(store.load_results_json(run.run_key)),
                           fmt::format("history run {} ({})", run_name(run), run.run_key.substr(0, 12)));
}

}  // namespace

RunReport rolling_baseline(const std::vector<RunReport>& previous) {
  RunReport baseline = previous.back();
  baseline.results.clear();
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<const JobResult*>> by_pair;
  for (const auto& run : previous)
    for (const auto& r : run.results) {
      const auto key = std::make_pair(r.job.problem_id, r.job.candidate);
      if (!by_pair.count(key)) order.push_back(key);
      by_pair[key].push_back(&r);
    }
  for (const auto& key : order) {
    const auto& results = by_pair[key];
    std::vector<const JobResult*> correct;
    for (const auto* r : results)
      if (is_correct(r->status) && r->timings.count("candidate")) correct.push_back(r);
    if (correct.empty()) {
      baseline.results.push_back(*results.back());
      continue;
    }
    std::sort(correct.begin(), correct.end(), [](const JobResult* a, const JobResult* b) {
      return a->timings.at("candidate").headline_ms() < b->timings.at("candidate").headline_ms();
    });
    baseline.results.push_back(*correct[correct.size() / 2]);
  }
  baseline.planned_jobs = baseline.results.size();
  return baseline;
}

GateResult rolling_gate(HistoryStore& store, const std::vector<StoredRun>& runs, std::size_t window,
                        double fail_percent) {
  GateResult gate;
  if (runs.empty()) {
    gate.note = "no runs";
    return gate;
  }
  const StoredRun& latest = runs.back();
  gate.latest_label = run_name(latest);
  std::vector<const StoredRun*> chosen;
  std::size_t other_env = 0;
  for (std::size_t i = runs.size() - 1; i-- > 0 && chosen.size() < window;) {
    if (runs[i].device_name == latest.device_name && runs[i].torch == latest.torch)
      chosen.push_back(&runs[i]);
    else
      ++other_env;
  }
  if (other_env > 0)
    gate.note = fmt::format("{} earlier run(s) on another device or torch left out of the baseline", other_env);
  if (chosen.empty()) {
    gate.note = fmt::format("no earlier run on {} with torch {} to compare with{}", latest.device_name,
                            latest.torch, gate.note.empty() ? "" : " (" + gate.note + ")");
    return gate;
  }
  std::reverse(chosen.begin(), chosen.end());  // oldest first
  std::vector<RunReport> previous;
  for (const auto* run : chosen) {
    previous.push_back(load_run(store, *run));
    gate.baseline.push_back(run_name(*run));
  }
  const RunReport base = rolling_baseline(previous);
  const RunReport next = load_run(store, latest);
  const std::string base_name = fmt::format("rolling baseline (median of {} runs: {} .. {})", chosen.size(),
                                            gate.baseline.front(), gate.baseline.back());
  gate.comparison = compare_reports(base, base_name, next, gate.latest_label);
  gate.regression = has_regression(*gate.comparison, fail_percent);
  return gate;
}

}  // namespace kbench
