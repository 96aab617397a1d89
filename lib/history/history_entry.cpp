#include "history/history_entry.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hmac_sha256.hpp"
#include "report/results_json.hpp"
#include "report/summary_metrics.hpp"

namespace kbench {
namespace {

std::string env_text(const nlohmann::json& environment, const char* key) {
  const auto it = environment.find(key);
  return it != environment.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<double> headline(const JobResult& r, const std::string& variant) {
  const auto it = r.timings.find(variant);
  if (it == r.timings.end() || it->second.samples_ms.empty()) return std::nullopt;
  return it->second.headline_ms();
}

}  // namespace

HistoryEntry history_entry(const RunReport& report, const std::string& source, const std::string& label,
                           const std::string& added_at) {
  if (report.results.size() != report.planned_jobs)
    throw InputError(fmt::format("{}: incomplete run ({} of {} evaluations); finish it (kbench run --resume) "
                                 "or merge all shards before adding it to the history",
                                 source, report.results.size(), report.planned_jobs));
  const nlohmann::json json = results_json(report);
  HistoryEntry e;
  StoredRun& run = e.run;
  run.results_json = json.dump();
  run.run_key = to_hex(sha256(run.results_json));
  run.added_at = added_at;
  run.started_at = report.run.started_at;
  run.label = label;
  run.suite = report.suite_name;
  run.device = to_string(report.device);
  run.environment = report.environment;
  run.device_name = env_text(report.environment, "device_name");
  run.torch = env_text(report.environment, "torch");
  const SummaryMetrics summary = compute_summary(report.results);
  run.evaluations = std::int64_t(summary.evaluations);
  run.correct = std::int64_t(summary.correct);
  run.pass_at_1 = summary.pass_at_1;
  run.geomean_vs_eager = summary.geomean_speedup_vs_eager;
  run.geomean_vs_inductor = summary.geomean_speedup_vs_inductor;
  for (const auto& r : report.results)
    e.results.push_back({run.run_key, r.job.problem_id, r.job.candidate, to_string(r.status),
                         headline(r, "candidate"), headline(r, "eager"), headline(r, "inductor"),
                         speedup_vs(r, "eager"), speedup_vs(r, "inductor")});
  return e;
}

}  // namespace kbench
