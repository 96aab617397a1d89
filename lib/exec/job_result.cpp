#include "exec/job_result.hpp"

#include <cmath>
#include <stdexcept>

namespace kbench {

std::optional<double> speedup_vs(const JobResult& result, const std::string& baseline) {
  if (!is_correct(result.status)) return std::nullopt;
  const auto candidate = result.timings.find("candidate");
  const auto base = result.timings.find(baseline);
  if (candidate == result.timings.end() || base == result.timings.end()) return std::nullopt;
  if (!(candidate->second.stats.median > 0)) return std::nullopt;
  return base->second.stats.median / candidate->second.stats.median;
}

nlohmann::json worker_message(const JobResult& result) {
  nlohmann::json timings = nlohmann::json::object();
  for (const auto& [name, m] : result.timings)
    timings[name] = {{"timer", m.timer}, {"samples_ms", m.samples_ms}};
  return {{"status", to_string(result.status)},
          {"message", result.message},
          {"diagnostics", result.diagnostics},
          {"timings", timings}};
}

void apply_worker_message(const nlohmann::json& message, JobResult& result) {
  const auto status = status_from_string(message.at("status").get<std::string>());
  if (!status) throw std::runtime_error("unknown status in worker message");
  result.status = *status;
  result.message = message.at("message").get<std::string>();
  result.diagnostics = message.at("diagnostics");
  if (!result.diagnostics.is_object()) throw std::runtime_error("diagnostics must be an object");
  result.timings.clear();
  for (const auto& [name, value] : message.at("timings").items()) {
    Measurement m;
    m.timer = value.at("timer").get<std::string>();
    m.samples_ms = value.at("samples_ms").get<std::vector<double>>();
    for (double x : m.samples_ms)
      if (!std::isfinite(x) || x < 0) throw std::runtime_error("invalid timing sample");
    if (m.samples_ms.empty()) continue;
    m.stats = summarize(m.samples_ms);
    result.timings[name] = std::move(m);
  }
}

}  // namespace kbench
