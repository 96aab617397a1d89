#pragma once
// How much of a problem a worker keeps, and where (docs/memory.md). From the footprint of one
// reference call, measured before anything else is built, the device memory the worker was
// granted (exec/memory_ledger.hpp) and its host budget (from memory_limit_gb), it decides
// which extra correctness trials keep their inputs and weights on the device, which wait in
// pageable host memory (copied over for their one checked call), which are not run at all
// (their expected outputs would not fit the host), and how many timing input sets the deck
// holds. Expected outputs are always on the host, never on the device (worker/trial.hpp).
#include <nlohmann/json.hpp>

namespace kbench {

struct MemoryFootprint {
  long long input_bytes = 0;      // the tensors of one get_inputs() set
  long long output_bytes = 0;     // the reference's outputs of one call
  long long weight_bytes = 0;     // parameters and buffers of one reference model
  long long call_peak_bytes = 0;  // allocator peak above the resting state during one call
};

struct MemoryPlanRequest {
  MemoryFootprint footprint;
  long long budget_bytes = 0;       // device memory this worker may use; 0: unbounded
  long long host_budget_bytes = 0;  // host memory for expected outputs and parked trials; 0: unbounded
  long long fixed_bytes = 0;        // independent of the problem: the L2 flush buffer
  int extra_trials = 0;             // correctness trials besides the first (post-timing included)
  int timing_sets_wanted = 1;
  int timed_variants = 2;           // candidate and baselines: each holds clones of every set
  bool device_is_host = false;      // the CPU: "on the device" and "on the host" are one memory
};

struct MemoryPlan {
  int trials_on_device = 0;     // of the extra trials, in build order
  int trials_on_host = 0;       // the next ones; any after these are not run
  int trials_dropped = 0;
  int timing_sets = 1;
  long long minimum_bytes = 0;  // device: one timing set, every extra trial elsewhere
  long long planned_bytes = 0;  // device: this plan's estimate of the worker's peak
  long long budget_bytes = 0;
  long long host_planned_bytes = 0;
  long long host_budget_bytes = 0;
  bool fits = true;             // minimum_bytes within the usable device budget (or no budget)
};

// Allocator slack kept out of the plan: fragmentation, the candidate's own workspaces.
constexpr double kPlannedShareOfBudget = 0.85;

MemoryPlan plan_memory(const MemoryPlanRequest& request);

// The judge of a blinded job (worker/judge.hpp) on the device, from the reference worker's
// footprint: the first trial's model and inputs, one fresh set built from a call's seed, and one
// reference call (docs/memory.md#the-judge). It runs after the candidate worker, under the job's
// grant `budget_bytes` (0: unbounded); `fits` says whether it may start.
MemoryPlan plan_judge_memory(const MemoryFootprint& footprint, long long budget_bytes);

nlohmann::json to_json(const MemoryFootprint& footprint);
// Throws nlohmann::json::exception or std::invalid_argument naming the bad field.
MemoryFootprint memory_footprint_from_json(const nlohmann::json& json);
nlohmann::json to_json(const MemoryPlan& plan);

}  // namespace kbench
