#pragma once
// A job's memory: the peaks its worker measured on the device and the controller measured on
// the host, what device memory it was granted, and the plan it made (docs/memory.md). Written
// and read here only: the worker frame, the results file and the journal all go through these.
#include <optional>

#include <nlohmann/json.hpp>

namespace kbench {

// The judge of a blinded job (exec/blinded_job.hpp): a trusted process that, after the candidate
// worker has ended and under the same grant, runs the reference once per committed call with
// fresh values (docs/memory.md#the-judge).
struct JudgeMemory {
  bool reference_calls = false;      // it built the reference and ran it (fresh values)
  long long planned_bytes = 0;       // its device need from the reference's footprint (plan_judge_memory)
  std::optional<long long> gpu_peak_allocated_bytes;  // its own allocator, CUDA only
  std::optional<long long> gpu_peak_reserved_bytes;
  long long host_peak_rss_bytes = 0;  // the controller's watchdog scan of its process tree
};

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
  // A blinded job's judge; absent for jobs without one.
  std::optional<JudgeMemory> judge;

  // What the job's processes on the device peaked at, the largest of them (the worker's, or
  // a blinded job's candidate worker's and judge's): what the ledger learns for its problem.
  [[nodiscard]] std::optional<long long> job_gpu_peak_reserved_bytes() const;
};

nlohmann::json to_json(const MemoryUsage& usage);
// Throws nlohmann::json::exception or std::invalid_argument naming the bad field.
MemoryUsage memory_usage_from_json(const nlohmann::json& json);

}  // namespace kbench
