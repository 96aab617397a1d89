#include "report/results_reader.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "model/codec.hpp"
#include "report/json_input.hpp"

namespace kbench {
namespace {

void check_schema(const JsonFields& file, const std::string& source) {
  const auto version = file.text("schema_version");
  const auto major = version.substr(0, version.find('.'));
  if (major != "1")
    throw InputError(fmt::format("{}: schema_version {} is not supported (this kbench reads 1.x)",
                                 source, version));
}

RunReport read_report(const nlohmann::json& json, const std::string& source) {
  const JsonFields file(json, "");
  check_schema(file, source);
  RunReport report;
  const auto suite = file.fields("suite");
  report.suite_name = suite.text("name");
  report.suite_file = suite.text("file");
  report.device = device_from_json(file, "device");
  report.run = read_run_info(file);
  report.environment = file.object("environment");
  if (file.has("generation") && file.at("generation").is_object()) {
    const auto g = file.fields("generation");
    report.generation = GenerationRun{g.text_or("base_url", ""), g.text_or("model", ""),
                                      g.text_or("backend", ""), g.integer_or("samples", "samples", 1),
                                      g.integer_or("turns", "turn", 1)};
  }
  const auto& results = file.at("results");
  if (!results.is_array()) file.fail("results", "must be an array");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto where = fmt::format("results[{}]", i);
    report.results.push_back(result_from_json(results[i], where, report.device));
    const JsonFields r(results[i], where);
    if (r.has("degenerate") && !(r.at("degenerate").is_boolean() && r.flag("degenerate")))
      r.fail("degenerate", "only `true` is written (absent: not degenerate)");
    if (r.has("degenerate"))
      report.degenerate_problems[report.results.back().job.problem_id] = r.text("degenerate_reason");
  }
  // planned_evaluations keeps an interrupted run incomplete after reading.
  const auto summary = file.fields("summary");
  report.planned_jobs = summary.count("planned_evaluations");
  if (report.planned_jobs < report.results.size())
    summary.fail("planned_evaluations", "fewer than the results present");
  return report;
}

}  // namespace

JobResult read_result_json(const nlohmann::json& json, const std::string& where, const Device& device) {
  try {
    return result_from_json(json, where, device);
  } catch (const CodecError& e) {
    throw InputError(e.what());
  }
}

RunReport read_results_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw InputError(source + ": not a kbench results file (expected a JSON object)");
  try {
    return read_report(json, source);
  } catch (const CodecError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
}

RunReport read_results_file(const std::filesystem::path& file) {
  return read_results_json(read_json_file(file, "results file"), file.string());
}

}  // namespace kbench
