#pragma once
// Runs jobs one worker process at a time and turns each worker's outcome into a JobResult.
// Nothing here needs Python: the controller only spawns, watches and reads.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/job.hpp"
#include "exec/job_result.hpp"
#include "exec/worker_process.hpp"

namespace kbench {

struct ControllerOptions {
  std::filesystem::path work_dir;  // one sub-folder per job
  // Called after every finished job, in order, so reports can be rewritten as the run goes.
  std::function<void(const JobResult&, std::size_t done, std::size_t total)> on_result;
};

// Resolves "auto" to "cuda:0" when a CUDA device is usable, else "cpu"; validates "cuda:N".
// Throws InputError for a malformed device, EnvironmentError for an unavailable one.
std::string resolve_device(const std::string& requested);

// Starts a probe worker that imports torch/triton and reports versions and the device.
// Throws EnvironmentError with the worker's error when Python or torch is unusable.
nlohmann::json probe_environment(const std::string& device, const std::filesystem::path& work_dir);

JobResult run_job(const Job& job, const std::filesystem::path& job_dir);

// Stops early, without recording the unfinished job, when an interrupt is requested.
std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, const ControllerOptions& options);

// Maps a finished worker to a result (exposed for tests).
JobResult interpret_outcome(const Job& job, const WorkerOutcome& outcome);

}  // namespace kbench
