#include "report/report_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/error.hpp"

namespace kbench {

void check_same_environment(const RunReport& a, const std::string& a_name, const RunReport& b,
                            const std::string& b_name) {
  // Timings from another GPU or another torch (hence another Inductor) are not comparable.
  for (const char* key : {"device_name", "torch"}) {
    const auto x = a.environment.value(key, nlohmann::json()).dump();
    const auto y = b.environment.value(key, nlohmann::json()).dump();
    if (x != y)
      throw InputError(fmt::format("environment.{} differs: {} in {}, {} in {}; pass --ignore-env "
                                   "to use them together anyway",
                                   key, x, a_name, y, b_name));
  }
}

namespace {

bool same_generation(const std::optional<GenerationRun>& a, const std::optional<GenerationRun>& b) {
  if (!a || !b) return !a && !b;
  return std::tie(a->base_url, a->model, a->backend, a->samples, a->turns) ==
         std::tie(b->base_url, b->model, b->backend, b->samples, b->turns);
}

std::string generation_text(const std::optional<GenerationRun>& g) {
  if (!g) return "candidate files";
  return fmt::format("{} at {}, {}, {} samples, {} turns", g->model, g->base_url, g->backend, g->samples, g->turns);
}

}  // namespace

RunReport merge_reports(const std::vector<std::pair<std::string, RunReport>>& named_reports,
                        bool ignore_env, bool allow_suite_mismatch) {
  if (named_reports.empty()) throw InputError("merge: no results files given");
  const auto& [first_name, first] = named_reports.front();
  RunReport merged;
  merged.suite_name = first.suite_name;
  merged.suite_file = first.suite_file;
  merged.device = first.device;
  merged.environment = first.environment;
  merged.generation = first.generation;  // shards of one generated suite share their settings
  // The shards' build and command line (the first's), from the earliest start to the last finish.
  merged.run = first.run;
  merged.run.measured_by.clear();  // summed over the shards below
  std::map<std::pair<std::string, std::string>, std::string> seen;  // -> file it came from
  for (const auto& [name, report] : named_reports) {
    if (!ignore_env) check_same_environment(first, first_name, report, name);
    if (!allow_suite_mismatch && report.suite_name != first.suite_name)
      throw InputError(fmt::format("{} is suite '{}' but {} is suite '{}'; merge the shards of one "
                                   "suite, or pass --allow-suite-mismatch",
                                   first_name, first.suite_name, name, report.suite_name));
    if (!allow_suite_mismatch && !same_generation(report.generation, first.generation))
      throw InputError(fmt::format("{} and {} were generated differently ({} vs {}); merge the shards of one "
                                   "run, or pass --allow-suite-mismatch",
                                   first_name, name, generation_text(first.generation),
                                   generation_text(report.generation)));
    merged.run.started_at = std::min(merged.run.started_at, report.run.started_at);  // ISO 8601 sorts
    if (merged.run.finished_at.empty() || report.run.finished_at.empty()) merged.run.finished_at.clear();
    else merged.run.finished_at = std::max(merged.run.finished_at, report.run.finished_at);
    merged.planned_jobs += report.planned_jobs;
    // Each shard's builds: its own count where it has one (a resumed shard), else its results
    // under its build. Shards built apart then show in the merged file's measured_by.
    if (report.run.measured_by.empty()) merged.run.measured_by[report.run.git_commit] += report.results.size();
    for (const auto& [commit, count] : report.run.measured_by) merged.run.measured_by[commit] += count;
    merged.degenerate_problems.insert(report.degenerate_problems.begin(), report.degenerate_problems.end());
    for (const auto& r : report.results) {
      const auto key = std::make_pair(r.job.problem_id, r.job.candidate);
      const auto [it, fresh] = seen.emplace(key, name);
      if (!fresh)
        throw InputError(fmt::format("{} / {} is in both {} and {}; merge each shard once", key.first,
                                     key.second, it->second, name));
      merged.results.push_back(r);
    }
  }
  std::stable_sort(merged.results.begin(), merged.results.end(), [](const auto& a, const auto& b) {
    return std::tie(a.job.problem_id, a.job.candidate) < std::tie(b.job.problem_id, b.job.candidate);
  });
  return merged;
}

}  // namespace kbench
