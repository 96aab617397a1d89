#pragma once
// Inside the worker process: evaluates one job with the embedded Python started, as a
// reference unit (trials, expected outputs, baselines; worker/reference_unit.hpp) and a
// candidate unit (import, checks, timing; worker/candidate_unit.hpp) joined by a ReferenceWork
// (worker/reference_work.hpp). Candidate faults become statuses, never exceptions.
#include <nlohmann/json.hpp>

#include <string>

#include "device/device.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"
#include "worker/commitment.hpp"

namespace kbench {

// Both units in this process, the reference unit's Python objects shared with the candidate's.
// `short_baselines`: the controller keeps the baselines' timings; only a drift sample of the
// first is taken (ReferenceWork::short_baselines).
JobResult evaluate_job(const Job& job, bool short_baselines = false);

// The trusted measurement of kept reference work (model/kept_reference.hpp): the reference unit
// alone, then every baseline of the job timed by its full protocol, the baselines interleaved
// with each other; no candidate code is loaded. The result's `timings` are the baselines'.
JobResult measure_reference_baselines(const Job& job);

// The reference unit alone (no candidate code is loaded): its ReferenceWork encoded in full and
// blinded (reference_work.hpp), with the input digests another process checks its rebuilt
// inputs against. A failed problem is recorded in it, not thrown. `defer_baselines`: the
// candidate unit builds and times them (ReferenceUnit::run).
struct EncodedReferenceWork {
  std::string full;
  std::string blinded;
  // The timing witness's seeds and overhead, for the controller (null: none).
  nlohmann::json witness;
};
EncodedReferenceWork run_reference_unit(const Job& job, bool defer_baselines = false, bool short_baselines = false);

// The candidate unit alone, against encoded work from run_reference_unit (usually of another
// process). With blinded work, its outputs go to `commitment` for judge_commitment (judge.hpp).
// Throws std::runtime_error when the encoding is unreadable.
JobResult evaluate_against_reference(const Job& job, const std::string& encoded_work,
                                     Commitment* commitment = nullptr);

// Versions (python, torch, triton, CUDA, driver), the device's name and kbench's version.
nlohmann::json describe_environment(const Device& device);

}  // namespace kbench
