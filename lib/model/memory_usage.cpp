#include "model/memory_usage.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kbench {
namespace {

std::optional<long long> optional_bytes(const nlohmann::json& json, const char* key) {
  if (!json.contains(key) || json.at(key).is_null()) return std::nullopt;
  const auto value = json.at(key).get<long long>();
  if (value < 0) throw std::invalid_argument(std::string(key) + " must not be negative");
  return value;
}

nlohmann::json or_null(const std::optional<long long>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const JudgeMemory& j) {
  return {{"reference_calls", j.reference_calls},
          {"planned_bytes", j.planned_bytes},
          {"gpu_peak_allocated_bytes", or_null(j.gpu_peak_allocated_bytes)},
          {"gpu_peak_reserved_bytes", or_null(j.gpu_peak_reserved_bytes)},
          {"host_peak_rss_bytes", j.host_peak_rss_bytes}};
}

JudgeMemory judge_memory_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw std::invalid_argument("judge must be an object");
  JudgeMemory j;
  j.reference_calls = json.value("reference_calls", false);
  j.planned_bytes = optional_bytes(json, "planned_bytes").value_or(0);
  j.gpu_peak_allocated_bytes = optional_bytes(json, "gpu_peak_allocated_bytes");
  j.gpu_peak_reserved_bytes = optional_bytes(json, "gpu_peak_reserved_bytes");
  j.host_peak_rss_bytes = optional_bytes(json, "host_peak_rss_bytes").value_or(0);
  return j;
}

}  // namespace

std::optional<long long> MemoryUsage::job_gpu_peak_reserved_bytes() const {
  std::optional<long long> peak = gpu_peak_reserved_bytes;
  if (judge && judge->gpu_peak_reserved_bytes) peak = std::max(peak.value_or(0), *judge->gpu_peak_reserved_bytes);
  return peak;
}

nlohmann::json to_json(const MemoryUsage& u) {
  nlohmann::json json = {{"gpu_peak_allocated_bytes", or_null(u.gpu_peak_allocated_bytes)},
          {"gpu_peak_reserved_bytes", or_null(u.gpu_peak_reserved_bytes)},
          {"gpu_device_used_bytes", or_null(u.gpu_device_used_bytes)},
          {"gpu_budget_bytes", or_null(u.gpu_budget_bytes)},
          {"gpu_alone", u.gpu_alone},
          {"host_peak_rss_bytes", u.host_peak_rss_bytes},
          {"plan", u.plan}};
  // Only where there was a judge: results of other jobs read as before.
  if (u.judge) json["judge"] = to_json(*u.judge);
  return json;
}

MemoryUsage memory_usage_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw std::invalid_argument("must be an object");
  MemoryUsage u;
  u.gpu_peak_allocated_bytes = optional_bytes(json, "gpu_peak_allocated_bytes");
  u.gpu_peak_reserved_bytes = optional_bytes(json, "gpu_peak_reserved_bytes");
  u.gpu_device_used_bytes = optional_bytes(json, "gpu_device_used_bytes");
  u.gpu_budget_bytes = optional_bytes(json, "gpu_budget_bytes");
  u.gpu_alone = json.value("gpu_alone", false);
  u.host_peak_rss_bytes = optional_bytes(json, "host_peak_rss_bytes").value_or(0);
  u.plan = json.value("plan", nlohmann::json::object());
  if (!u.plan.is_object()) throw std::invalid_argument("plan must be an object");
  if (json.contains("judge") && !json.at("judge").is_null()) u.judge = judge_memory_from_json(json.at("judge"));
  return u;
}

}  // namespace kbench
