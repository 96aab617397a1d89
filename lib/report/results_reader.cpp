#include "report/results_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "core/error.hpp"
#include "report/json_input.hpp"
#include "suite/number_range.hpp"

namespace kbench {
namespace {

// Thrown inside the reader with the JSON path of the bad value; rethrown as InputError.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const nlohmann::json& field(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key))
    throw Malformed(fmt::format("{}: missing '{}'", where, key));
  return object.at(key);
}

// A number within its documented range (suite/number_range), else Malformed naming `path`.
double in_range(double value, const char* range_name, const std::string& path) {
  const auto problem = number_range_problem(value, number_range(range_name));
  if (!problem.empty()) throw Malformed(fmt::format("{}: {}", path, problem));
  return value;
}

template <typename T>
T get(const nlohmann::json& object, const char* key, const std::string& where) {
  const auto& value = field(object, key, where);
  try {
    return value.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Malformed(fmt::format("{}.{}: unexpected type {}", where, key, value.type_name()));
  }
}

void check_schema(const nlohmann::json& json, const std::string& source) {
  const auto version = get<std::string>(json, "schema_version", "file");
  const auto major = version.substr(0, version.find('.'));
  if (major != "1")
    throw InputError(fmt::format("{}: schema_version {} is not supported (this kbench reads 1.x)",
                                 source, version));
}

Measurement read_measurement(const nlohmann::json& j, const std::string& where) {
  Measurement m;
  m.timer = get<std::string>(j, "timer", where);
  m.mode = get<std::string>(j, "mode", where);
  m.statistic = get<std::string>(j, "statistic", where);
  if (m.statistic != "median" && m.statistic != "mean")
    throw Malformed(fmt::format("{}.statistic: '{}' is not median or mean", where, m.statistic));
  m.samples_ms = get<std::vector<double>>(j, "samples_ms", where);
  m.rounds = get<std::vector<int>>(j, "rounds", where);
  m.offstream_samples = get<int>(j, "offstream_samples", where);
  m.discarded_samples = get<int>(j, "discarded_samples", where);
  m.calls_per_sample = get<int>(j, "calls_per_sample", where);
  m.warmup_calls = get<int>(j, "warmup_calls", where);
  if (m.samples_ms.empty()) throw Malformed(where + ".samples_ms: empty");
  for (std::size_t i = 0; i < m.samples_ms.size(); ++i)
    in_range(m.samples_ms[i], "samples_ms", fmt::format("{}.samples_ms[{}]", where, i));
  if (m.rounds.size() != m.samples_ms.size())
    throw Malformed(where + ": rounds and samples_ms differ in length");
  return m;
}

JobResult read_result(const nlohmann::json& j, const std::string& where, const std::string& device) {
  JobResult r;
  r.job.problem_id = get<std::string>(j, "problem", where);
  r.job.candidate = get<std::string>(j, "candidate", where);
  r.job.candidate_file = get<std::string>(j, "candidate_file", where);
  r.job.problem_file = get<std::string>(j, "problem_file", where);
  r.job.level = get<int>(j, "level", where);
  r.job.tags = get<std::vector<std::string>>(j, "tags", where);
  r.job.device = device;
  const auto status = get<std::string>(j, "status", where);
  const auto parsed = status_from_string(status);
  if (!parsed) throw Malformed(fmt::format("{}.status: unknown status '{}'", where, status));
  r.status = *parsed;
  r.message = get<std::string>(j, "message", where);
  r.diagnostics = field(j, "diagnostics", where);
  r.protocol = field(j, "protocol", where);
  if (!r.diagnostics.is_object() || !r.protocol.is_object())
    throw Malformed(where + ": diagnostics and protocol must be objects");
  r.wall_s = in_range(get<double>(j, "wall_s", where), "wall_s", where + ".wall_s");
  const auto& timings = field(j, "timings", where);
  if (!timings.is_object()) throw Malformed(where + ".timings: must be an object");
  for (const auto& [name, value] : timings.items()) {
    if (value.is_null()) continue;
    r.timings[name] = read_measurement(value, where + ".timings." + name);
  }
  if (j.contains("schedule")) {
    const auto& s = j.at("schedule");
    const std::string at = where + ".schedule";
    r.schedule = ScheduleInfo{get<int>(s, "slot", at), get<std::string>(s, "device", at),
                              in_range(get<double>(s, "start_unix_s", at), "unix_s", at + ".start_unix_s"),
                              in_range(get<double>(s, "end_unix_s", at), "unix_s", at + ".end_unix_s")};
  }
  derive_statistics(r);  // never trust the file's figures
  return r;
}

}  // namespace

JobResult read_result_json(const nlohmann::json& json, const std::string& where,
                           const std::string& device) {
  try {
    return read_result(json, where, device);
  } catch (const Malformed& e) {
    throw InputError(e.what());
  }
}

RunReport read_results_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw InputError(source + ": not a kbench results file (expected a JSON object)");
  try {
    check_schema(json, source);
    RunReport report;
    const auto& suite = field(json, "suite", "file");
    report.suite_name = get<std::string>(suite, "name", "suite");
    report.suite_file = get<std::string>(suite, "file", "suite");
    report.device = get<std::string>(json, "device", "file");
    report.started_at = get<std::string>(json, "started_at", "file");
    report.environment = field(json, "environment", "file");
    if (!report.environment.is_object()) throw Malformed("environment: must be an object");
    const auto& results = field(json, "results", "file");
    if (!results.is_array()) throw Malformed("results: must be an array");
    for (std::size_t i = 0; i < results.size(); ++i)
      report.results.push_back(read_result(results[i], fmt::format("results[{}]", i), report.device));
    // planned_evaluations keeps an interrupted run incomplete after reading.
    const auto& summary = field(json, "summary", "file");
    report.planned_jobs = get<std::size_t>(summary, "planned_evaluations", "summary");
    if (report.planned_jobs < report.results.size())
      throw Malformed("summary.planned_evaluations: fewer than the results present");
    return report;
  } catch (const Malformed& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
}

RunReport read_results_file(const std::filesystem::path& file) {
  return read_results_json(read_json_file(file, "results file"), file.string());
}

}  // namespace kbench
