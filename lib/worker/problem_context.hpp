#pragma once
// What both units of a job need in their process (reference_unit.hpp, candidate_unit.hpp):
// torch set up for the job, the problem file imported, the trial builder, the job's resolved
// timing and tolerance. Trusted code only: nothing of the candidate is loaded here.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "model/job.hpp"
#include "measure/timing_config.hpp"
#include "model/tolerance.hpp"
#include "worker/device_memory.hpp"
#include "worker/trial.hpp"

namespace kbench {

struct ProblemContext {
  // Imports torch (TF32 off, no grad) and the problem file; a Verdict problem_error on failure.
  explicit ProblemContext(const Job& job);

  // Rebuilds a trial's model and inputs from its seeds and constants (a trial received from
  // another process) and checks them against the digests it was exported with: a problem whose
  // get_inputs() is not a function of the seed cannot be split (Verdict problem_error).
  // `first` is seed trial 0 (already rebuilt), whose model timing sets and the recheck share.
  void rebuild(Trial& trial, const Trial* first) const;

  // The job's device memory (worker/device_memory.hpp): its grant from the file the controller
  // names in KBENCH_MEMORY_GRANT, its footprint, plan and peaks, shared by both units. Made at
  // the first call, under the GPU lock: reading the device's memory creates the CUDA context.
  DeviceMemory& memory() const;

  const Job& job;
  pybind11::module_ torch;
  pybind11::object device;
  pybind11::object dtype;
  pybind11::module_ problem;
  std::string problem_code_file;
  std::unique_ptr<TrialBuilder> builder;
  ResolvedTiming timing;
  Tolerance tolerance;

 private:
  mutable std::unique_ptr<DeviceMemory> memory_;
};

// The job's tolerance: its atol/rtol, else the dtype's defaults.
Tolerance job_tolerance(const Job& job);

// The seed of correctness trial `trial` (documented in docs/architecture.md).
inline int trial_seed(int trial) { return 1000 + 17 * trial; }

// Builds a model with the problem constants `constants` in force, restoring them afterwards.
pybind11::object build_model_with_constants(const ProblemContext& context, pybind11::handle cls, int seed,
                                            const nlohmann::json& constants);

}  // namespace kbench
