#pragma once
// The candidate unit of one job: the candidate's import, its correctness trials, its timing
// interleaved with the baselines and the integrity checks around all three, against a
// ReferenceWork (reference_work.hpp). With handles from a reference unit of the same process it
// reuses its baselines and timing session; without, it rebuilds them from the work (another
// process produced it) and checks that the rebuilt inputs are the ones the work was made from.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "model/job_result.hpp"
#include "worker/commitment.hpp"
#include "integrity/integrity_monitor.hpp"
#include "worker/problem_context.hpp"
#include "worker/reference_unit.hpp"
#include "worker/reference_work.hpp"
#include "worker/trial_judgement.hpp"

namespace kbench {

class CandidateUnit {
 public:
  CandidateUnit(const ProblemContext& context, ReferenceWork& work, ReferenceHandles handles);

  // The job's result; candidate faults (and a failed reference) become statuses, never exceptions.
  JobResult run();
  // With blinded work: the outputs of every checked call and the sampled values of every timed
  // one, for the trusted judge (the verdict of run() is then provisional).
  [[nodiscard]] const Commitment& commitment() const { return commitment_; }

 private:
  void rebuild_handles();
  void load_candidate();
  pybind11::object build_candidate(const Trial& trial);
  void check_candidate(const Trial& trial);
  void check_call(const Trial& trial, const pybind11::object& candidate, const pybind11::tuple& args);
  void recheck_after_timing();
  void run_timing_witness();
  void measure_with_candidate(JobResult& result);
  void check_kernel_share();

  const ProblemContext& context_;
  const Job& job_;
  ReferenceWork& work_;
  ReferenceHandles handles_;
  IntegrityMonitor integrity_;
  nlohmann::json baseline_notes_;
  pybind11::module_ candidate_module_;
  pybind11::object timed_candidate_;
  pybind11::tuple recheck_args_;
  ErrorBounds bounds_;
  Commitment commitment_;  // blinded work: what the judge compares
  std::vector<SampleReveal> witness_reveals_;  // the timing witness's groups, added after the samples'
  std::string phase_ = "harness";  // whose work is running: what an out-of-memory error names
};

}  // namespace kbench
