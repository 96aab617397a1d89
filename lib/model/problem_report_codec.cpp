// The worker's --validate frame (model/problem_report.hpp), read with the codec's rules.
#include "model/codec.hpp"

namespace kbench {

nlohmann::json to_json(const ProblemReport& report) {
  if (report.error) return {{"error", *report.error}};
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& check : report.checks)
    checks.push_back({{"name", check.name}, {"ok", check.ok}, {"detail", check.detail}});
  return {{"checks", checks},
          {"peak_memory_bytes", report.peak_device_memory_bytes ? nlohmann::json(*report.peak_device_memory_bytes)
                                                                : nlohmann::json(nullptr)},
          {"peak_rss_bytes", report.peak_rss_bytes}};
}

ProblemReport problem_report_from_json(const nlohmann::json& json, const std::string& where) {
  const JsonFields fields(json, where);
  ProblemReport report;
  if (fields.has("error")) {
    report.error = fields.text("error");
    return report;
  }
  const auto& checks = fields.at("checks");
  if (!checks.is_array()) fields.fail("checks", "is not an array");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const JsonFields check(checks[i], fields.path("checks") + "[" + std::to_string(i) + "]");
    report.checks.push_back({check.text("name"), check.flag("ok"), check.text_or("detail", "")});
  }
  if (fields.has("peak_memory_bytes"))
    report.peak_device_memory_bytes = static_cast<std::uint64_t>(fields.count("peak_memory_bytes"));
  if (fields.has("peak_rss_bytes")) report.peak_rss_bytes = fields.count("peak_rss_bytes");
  return report;
}

}  // namespace kbench
