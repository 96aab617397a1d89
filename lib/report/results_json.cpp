#include "report/results_json.hpp"

#include <fmt/format.h>

#include <fstream>

#include "core/error.hpp"
#include "model/codec.hpp"
#include "report/generation_totals.hpp"
#include "report/turn_metrics.hpp"
#include "report/summary_metrics.hpp"

namespace kbench {

std::string degenerate_text(const RunReport& report, const JobResult& r) {
  const auto it = report.degenerate_problems.find(r.job.problem_id);
  return it == report.degenerate_problems.end() ? "" : "degenerate problem: " + it->second;
}

namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json group_json(const GroupMetrics& m) {
  return {{"problems", m.problems},
          {"evaluations", m.evaluations},
          {"correct", m.correct},
          {"pass_at_1", m.pass_at_1},
          {"beats_inductor", optional_number(m.beats_inductor)},
          {"geomean_speedup_vs_inductor", optional_number(m.geomean_speedup_vs_inductor)}};
}

template <typename Key>
nlohmann::json breakdown_json(const std::map<Key, GroupMetrics>& groups) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, m] : groups) out[fmt::format("{}", key)] = group_json(m);
  return out;
}

nlohmann::json fast_p_json(const std::optional<FastP>& f) {
  if (!f) return nullptr;
  return {{"significant", f->significant}, {"point", f->point}};
}

nlohmann::json estimate_json(const std::optional<GeomeanEstimate>& e) {
  if (!e) return nullptr;
  return {{"value", e->value}, {"ci", nlohmann::json::array({e->ci.low, e->ci.high})}};
}

nlohmann::json geomean_json(const std::optional<GeomeanFigures>& g) {
  if (!g) return nullptr;
  return {{"correct", estimate_json(g->correct)},
          {"all_failures_as_1x", estimate_json(g->all_failures_as_1x)}};
}

// Per-baseline figures as {"eager": ..., "inductor": ...}.
template <typename T, typename ToJson>
nlohmann::json per_baseline(const std::map<std::string, T>& figures, ToJson to_json) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [baseline, f] : figures) out[baseline] = to_json(f);
  return out;
}

nlohmann::json summary_json(const SummaryMetrics& m, std::size_t planned_jobs) {
  nlohmann::json pass_at_k = nlohmann::json::object();
  for (const auto& [k, value] : m.pass_at_k) pass_at_k[std::to_string(k)] = value;
  nlohmann::json out = group_json(m);
  out["planned_evaluations"] = planned_jobs;
  out["geomean_speedup_vs_eager"] = optional_number(m.geomean_speedup_vs_eager);
  out["pass_at_k"] = pass_at_k;
  out["beats_inductor_significant"] = optional_number(m.beats_inductor_significant);
  out["fast_p"] = per_baseline(m.fast_p, fast_p_json);
  out["geomean"] = per_baseline(m.geomean, geomean_json);
  out["by_level"] = breakdown_json(m.by_level);
  out["by_tag"] = breakdown_json(m.by_tag);
  return out;
}

}  // namespace

nlohmann::json results_json(const RunReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : report.results) {
    results.push_back(result_json(r));
    // Absent: not degenerate (docs/results-format.md). Journal lines leave it out: a resumed
    // run takes it from the suite.
    if (auto it = report.degenerate_problems.find(r.job.problem_id); it != report.degenerate_problems.end()) {
      results.back()["degenerate"] = true;
      results.back()["degenerate_reason"] = it->second;
    }
  }
  nlohmann::json out = {{"schema_version", kResultsSchemaVersion},
          {"suite", {{"name", report.suite_name}, {"file", report.suite_file.string()}}},
          {"device", to_string(report.device)},
          {"complete", report.results.size() == report.planned_jobs},
          {"environment", report.environment},
          {"results", results},
          {"summary", summary_json(compute_summary(report.results), report.planned_jobs)}};
  write_run_info(report.run, out);
  if (report.generation) {
    const auto& g = *report.generation;
    nlohmann::json generation = {{"base_url", g.base_url}, {"model", g.model},
                                 {"backend", g.backend},   {"samples", g.samples},
                                 {"turns", g.turns}};
    generation.update(to_json(generation_totals(report.results)));
    // The agent loop's figures per turn (docs/metrics.md#turns); derived, never read back.
    if (g.turns > 1) {
      nlohmann::json by_turn = nlohmann::json::array();
      for (const auto& t : turn_metrics(report.results))
        by_turn.push_back({{"turn", t.turn}, {"evaluations", t.evaluations}, {"statuses", t.statuses},
                           {"pass_at_1", t.pass_at_1}, {"fast_p", t.fast_p}});
      generation["by_turn"] = by_turn;
    }
    out["generation"] = generation;
  }
  return out;
}

void write_file_atomically(const std::filesystem::path& file,
                           const std::function<void(std::ostream&)>& write) {
  const auto temp = file.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc | std::ios::binary);
    write(out);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", temp));
  }
  std::filesystem::rename(temp, file);
}

void write_results_json(const RunReport& report, const std::filesystem::path& file) {
  write_file_atomically(file, [&](std::ostream& out) { out << results_json(report).dump(2) << "\n"; });
}

void check_writable(const std::filesystem::path& file) {
  const auto parent = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(parent))
    throw InputError(fmt::format("{}: the output folder {} does not exist", file.string(),
                                 parent.string()));
  std::ofstream probe(file.string() + ".tmp");
  if (!probe)
    throw InputError(fmt::format("{}: cannot write here; choose another output path", file.string()));
  probe.close();
  std::filesystem::remove(file.string() + ".tmp");
}

}  // namespace kbench
