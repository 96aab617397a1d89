#pragma once
// A job's memory: the peaks its worker measured on the device and the controller measured on
// the host, what device memory it was granted, and the plan it made (docs/memory.md). Written
// and read here only: the worker frame, the results file and the journal all go through these.
#include <optional>

#include <nlohmann/json.hpp>

namespace kbench {

struct MemoryUsage {
  // Device (CUDA), from the worker's torch allocator: its high-water marks over the whole job.
  std::optional<long long> gpu_peak_allocated_bytes;
  std::optional<long long> gpu_peak_reserved_bytes;
  // What the driver says is in use on the whole device (every process) at the job's end: a
  // neighbour's share shows here, not above.
  std::optional<long long> gpu_device_used_bytes;
  std::optional<long long> gpu_budget_bytes;  // granted by the controller's ledger
  bool gpu_alone = false;                     // the budget was the whole device
  // Host: peak resident memory of the worker's process tree (the controller's watchdog scan).
  long long host_peak_rss_bytes = 0;
  // The worker's footprint and plan ({"footprint": {...}, "plan": {...}}, exec/memory_plan.hpp).
  nlohmann::json plan = nlohmann::json::object();
};

nlohmann::json to_json(const MemoryUsage& usage);
// Throws nlohmann::json::exception or std::invalid_argument naming the bad field.
MemoryUsage memory_usage_from_json(const nlohmann::json& json);

}  // namespace kbench
