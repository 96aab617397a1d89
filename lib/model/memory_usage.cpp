#include "model/memory_usage.hpp"

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

}  // namespace

nlohmann::json to_json(const MemoryUsage& u) {
  return {{"gpu_peak_allocated_bytes", or_null(u.gpu_peak_allocated_bytes)},
          {"gpu_peak_reserved_bytes", or_null(u.gpu_peak_reserved_bytes)},
          {"gpu_device_used_bytes", or_null(u.gpu_device_used_bytes)},
          {"gpu_budget_bytes", or_null(u.gpu_budget_bytes)},
          {"gpu_alone", u.gpu_alone},
          {"host_peak_rss_bytes", u.host_peak_rss_bytes},
          {"plan", u.plan}};
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
  return u;
}

}  // namespace kbench
