#pragma once
// A worker's view of its device memory (docs/memory.md): the grant the controller's ledger gave
// it (exec/memory_ledger.hpp), enforced on torch's CUDA allocator so this worker fails, alone
// and by name, before it pushes a neighbour out; the footprint of one reference call; the
// job's peaks; and what an out-of-memory error becomes (whose memory, needed and free).
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include <filesystem>
#include <optional>
#include <string>

#include "model/job.hpp"
#include "exec/memory_plan.hpp"
#include "model/memory_usage.hpp"
#include "worker/verdict.hpp"

namespace kbench {

// "gpu" or "host" when `text` (an exception's type, message or traceback) reports memory
// exhaustion; nullopt otherwise.
std::optional<std::string> out_of_memory_kind(const std::string& text);

class DeviceMemory {
 public:
  // Reads `grant_file` (exec/memory_ledger.hpp) when the controller wrote one (empty: no grant),
  // and caps torch's allocator at the grant (less the context's share) on a CUDA device.
  DeviceMemory(pybind11::module_ torch, pybind11::object device, bool cuda,
               const std::filesystem::path& grant_file);

  [[nodiscard]] long long grant_bytes() const { return grant_bytes_; }  // 0: no grant
  [[nodiscard]] bool alone() const { return alone_; }
  // The device budget a plan works with: the grant, else the device's free memory (CUDA), else
  // 0 (the CPU: its host budget is the bound).
  [[nodiscard]] long long planning_budget() const;

  // Starts measuring one call's footprint (the allocator's peak above the current state).
  void begin_call();
  // The allocator peak above begin_call()'s state (0 on the CPU, which has no allocator stats).
  long long end_call();

  void note_plan(const MemoryFootprint& footprint, const MemoryPlan& plan);
  [[nodiscard]] const std::optional<MemoryPlan>& plan() const { return plan_; }

  // The job's figures (the controller adds the host peak).
  MemoryUsage usage();

  // `verdict` rewritten when it is an out-of-memory error: the status `whose` earns
  // (problem_error for the reference and baselines, runtime_error for the candidate), a message
  // naming whose memory, needed and free, and diagnostics.out_of_memory. Else unchanged.
  Verdict explain(Verdict verdict, const std::string& whose);
  // The verdict for a plan whose minimum does not fit the grant (before anything big is built);
  // `whose`: the process that planned (the reference worker, or a blinded job's judge).
  Verdict does_not_fit(const MemoryPlan& plan, const std::string& whose = "reference") const;

 private:
  long long query(const char* function) const;
  void track_peaks();

  pybind11::module_ torch_;
  pybind11::object device_;
  bool cuda_ = false;
  long long grant_bytes_ = 0;
  bool alone_ = true;
  long long peak_allocated_ = 0, peak_reserved_ = 0, call_base_ = 0;
  std::optional<MemoryFootprint> footprint_;
  std::optional<MemoryPlan> plan_;
};

// Host memory a plan may fill with expected outputs and parked trials: the job's host limit
// (memory_limit_gb, which the watchdog enforces) less what this process holds now (the
// interpreter, torch, the CUDA libraries, the first trial) and kHostReserveBytes.
long long host_budget_bytes(const Job& job);
// Kept free for the candidate's own host use and for the libraries' later growth.
constexpr long long kHostReserveBytes = 1LL << 30;
// This process's resident set now (/proc/self/statm).
long long resident_bytes();

}  // namespace kbench
