#pragma once
// Inside the worker process: evaluates one job (reference, baselines, candidate, correctness,
// timing) with the embedded Python started. Candidate faults become statuses, never exceptions.
#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"

namespace kbench {

JobResult evaluate_job(const Job& job);

// Versions (python, torch, triton, CUDA, driver), the device's name and kbench's version.
nlohmann::json describe_environment(const Device& device);

// The seed of correctness trial `trial` (documented in docs/architecture.md).
inline int trial_seed(int trial) { return 1000 + 17 * trial; }

}  // namespace kbench
