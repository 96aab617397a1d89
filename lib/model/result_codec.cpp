// Results, measurements, worker frames, journal lines and the run's metadata (model/codec.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "model/codec.hpp"

namespace kbench {
namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json interval_json(const std::optional<Interval>& ci) {
  return ci ? nlohmann::json::array({ci->low, ci->high}) : nlohmann::json(nullptr);
}

}  // namespace

// The raw part of a measurement: what the worker sends and what a reader takes back.
nlohmann::json raw_measurement_json(const Measurement& m) {
  return {{"timer", m.timer},
          {"mode", m.mode},
          {"statistic", m.statistic},
          {"samples_ms", m.samples_ms},
          {"rounds", m.rounds},
          {"offstream_samples", m.offstream_samples},
          {"discarded_samples", m.discarded_samples},
          {"calls_per_sample", m.calls_per_sample},
          {"warmup_calls", m.warmup_calls}};
}

namespace {

// The results file's measurement: raw data with the statistics derived from it, in the order
// docs/results-format.md lists them.
nlohmann::json measurement_json(const Measurement& m) {
  const auto& s = m.stats;
  return {{"timer", m.timer},
          {"mode", m.mode},
          {"statistic", m.statistic},
          {"n", s.n},
          {"median_ms", s.median},
          {"median_ci_ms", interval_json(m.median_ci)},
          {"mean_ms", s.mean},
          {"min_ms", s.min},
          {"p10_ms", s.p10},
          {"p25_ms", s.p25},
          {"p75_ms", s.p75},
          {"p90_ms", s.p90},
          {"max_ms", s.max},
          {"stdev_ms", s.stdev},
          {"cv", s.cv},
          {"offstream_samples", m.offstream_samples},
          {"discarded_samples", m.discarded_samples},
          {"calls_per_sample", m.calls_per_sample},
          {"warmup_calls", m.warmup_calls},
          {"samples_ms", m.samples_ms},
          {"rounds", m.rounds}};
}

}  // namespace

// One reader for both forms; derived figures are never read.
Measurement measurement_from_json(const JsonFields& j) {
  Measurement m;
  m.timer = j.text("timer");
  m.mode = j.text_or("mode", "");
  m.statistic = j.text_or("statistic", "median");
  if (m.statistic != "median" && m.statistic != "mean")
    j.fail("statistic", fmt::format("'{}' is not median or mean", m.statistic));
  m.samples_ms = j.numbers("samples_ms", "samples_ms");
  if (m.samples_ms.empty()) j.fail("samples_ms", "empty");
  m.rounds = j.integers_or("rounds", "round", {});
  if (!m.rounds.empty() && m.rounds.size() != m.samples_ms.size())
    throw CodecError(j.path() + ": rounds and samples_ms differ in length");
  m.offstream_samples = j.integer_or("offstream_samples", "sample count", 0);
  m.discarded_samples = j.integer_or("discarded_samples", "sample count", 0);
  m.calls_per_sample = j.integer_or("calls_per_sample", "sample count", 1);
  m.warmup_calls = j.integer_or("warmup_calls", "sample count", 0);
  return m;
}

namespace {

std::map<std::string, Measurement> timings_from_json(const JsonFields& j) {
  std::map<std::string, Measurement> timings;
  const auto variants = j.fields("timings");  // refers into the document, as `value` below
  for (const auto& [name, value] : j.at("timings").items()) {
    if (value.is_null()) continue;  // a variant not timed
    timings[name] = measurement_from_json(JsonFields(value, variants.path(name)));
  }
  return timings;
}

Status status_from_json(const JsonFields& j) {
  const auto text = j.text("status");
  const auto status = status_from_string(text);
  if (!status) j.fail("status", fmt::format("unknown status '{}'", text));
  return *status;
}

nlohmann::json speedups_json(const JobResult& r) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [baseline, s] : r.speedups) {
    out[baseline] = {{"value", s.value},
                     {"ci", interval_json(s.ci)},
                     {"verdict", s.verdict ? nlohmann::json(to_string(*s.verdict)) : nlohmann::json(nullptr)}};
  }
  return out;
}

// A result's `memory` (model/memory_usage.hpp), absent in frames and files before it existed.
std::optional<MemoryUsage> memory_from_json(const JsonFields& j) {
  if (!j.has("memory")) return std::nullopt;
  try {
    return memory_usage_from_json(j.at("memory"));
  } catch (const std::exception& e) {
    j.fail("memory", e.what());
  }
}

}  // namespace

nlohmann::json worker_message(const JobResult& result) {
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& [name, m] : result.timings) timings[name] = raw_measurement_json(m);
  nlohmann::json message = {{"status", to_string(result.status)},
                            {"message", result.message},
                            {"diagnostics", result.diagnostics},
                            {"protocol", result.protocol},
                            {"timings", timings}};
  if (result.memory) message["memory"] = to_json(*result.memory);
  return message;
}

void apply_worker_message(const nlohmann::json& message, JobResult& result) {
  const JsonFields j(message, "frame");
  result.status = status_from_json(j);
  result.message = j.text("message");
  result.diagnostics = j.object("diagnostics");
  result.protocol = j.object_or("protocol", nlohmann::json::object());
  result.timings = timings_from_json(j);
  result.memory = memory_from_json(j);
  derive_statistics(result);
}

nlohmann::json result_json(const JobResult& r) {
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& name : variant_names()) {
    const auto it = r.timings.find(name);
    timings[name] = it == r.timings.end() ? nlohmann::json(nullptr) : measurement_json(it->second);
  }
  nlohmann::json out = {{"problem", r.job.problem_id},
                        {"candidate", r.job.candidate},
                        {"candidate_file", r.job.candidate_file.string()},
                        {"problem_file", r.job.problem_file.string()},
                        {"level", r.job.level},
                        {"tags", r.job.tags},
                        {"status", to_string(r.status)},
                        {"message", r.message},
                        {"diagnostics", r.diagnostics},
                        {"timings", timings},
                        {"protocol", r.protocol},
                        {"speedups", speedups_json(r)},
                        {"speedup_vs_eager", optional_json(speedup_vs(r, "eager"))},
                        {"speedup_vs_inductor", optional_json(speedup_vs(r, "inductor"))},
                        {"wall_s", r.wall_s}};
  if (r.job.origin) out["generation"] = to_json(*r.job.origin);
  if (r.memory) out["memory"] = to_json(*r.memory);
  if (r.kept_reference) out["kept_reference"] = to_json(*r.kept_reference);
  if (r.schedule) {
    out["schedule"] = {{"slot", r.schedule->slot},
                       {"device", to_string(r.schedule->device)},
                       {"start_unix_s", r.schedule->start_unix_s},
                       {"end_unix_s", r.schedule->end_unix_s}};
  }
  return out;
}

JobResult result_from_json(const nlohmann::json& json, const std::string& where, const Device& device) {
  const JsonFields j(json, where);
  JobResult r;
  r.job.problem_id = j.text("problem");
  r.job.candidate = j.text("candidate");
  r.job.candidate_file = j.text("candidate_file");
  r.job.problem_file = j.text("problem_file");
  r.job.level = j.integer("level", "level");
  r.job.tags = j.texts("tags");
  r.job.device = device;
  r.status = status_from_json(j);
  r.message = j.text("message");
  r.diagnostics = j.object("diagnostics");
  r.protocol = j.object("protocol");
  r.wall_s = j.number("wall_s", "wall_s");
  r.timings = timings_from_json(j);
  if (j.has("schedule")) {
    const auto s = j.fields("schedule");
    r.schedule = ScheduleInfo{s.integer("slot", "slot"), device_from_json(s, "device"),
                              s.number("start_unix_s", "unix_s"), s.number("end_unix_s", "unix_s")};
  }
  if (j.has("generation")) r.job.origin = candidate_origin_from_json(j.at("generation"), j.path("generation"));
  r.memory = memory_from_json(j);
  if (j.has("kept_reference"))
    r.kept_reference = kept_reference_use_from_json(j.at("kept_reference"), j.path("kept_reference"));
  derive_statistics(r);  // never trust the file's figures
  return r;
}

std::string result_label(const nlohmann::json& json) {
  const auto text = [&](const char* key) {
    return json.is_object() && json.contains(key) && json[key].is_string() ? json[key].get<std::string>()
                                                                            : std::string("?");
  };
  return fmt::format("{} / {}", text("problem"), text("candidate"));
}

nlohmann::json journal_line_json(std::size_t index, const std::string& key, const JobResult& result,
                                 const std::string& commit) {
  return {{"index", index}, {"key", key}, {"commit", commit}, {"result", result_json(result)}};
}

JournalLine journal_line_from_json(const nlohmann::json& json, const std::string& where) {
  const JsonFields j(json, where);
  JournalLine line;
  line.index = j.count("index");
  line.key = j.text_or("key", "");
  line.commit = j.text_or("commit", "unknown");
  line.result = j.object("result");
  return line;
}

void write_run_info(const RunInfo& run, nlohmann::json& out) {
  out["kbench_version"] = run.kbench_version;
  out["git_commit"] = run.git_commit;
  out["command_line"] = run.command_line;
  out["started_at"] = run.started_at;
  out["finished_at"] = run.finished_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.finished_at);
  // Only when a resumed run holds results another build measured: which builds, how many each.
  const bool mixed = std::any_of(run.measured_by.begin(), run.measured_by.end(),
                                 [&](const auto& entry) { return entry.first != run.git_commit; });
  if (mixed) out["measured_by"] = run.measured_by;
}

RunInfo read_run_info(const JsonFields& j) {
  RunInfo run;
  run.started_at = j.text("started_at");
  // Written since schema 1.1; a 1.0 file reads as an unknown build and command line.
  run.kbench_version = j.text_or("kbench_version", "unknown");
  run.git_commit = j.text_or("git_commit", "unknown");
  run.command_line = j.texts_or("command_line", {});
  run.finished_at = j.text_or("finished_at", "");
  if (j.has("measured_by")) {
    const nlohmann::json counts = j.object("measured_by");
    const JsonFields by(counts, "measured_by");
    for (const auto& entry : counts.items()) run.measured_by[entry.key()] = by.count(entry.key().c_str());
  }
  return run;
}

}  // namespace kbench
