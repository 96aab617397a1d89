#pragma once
// The narrow interface between the reference unit and the candidate unit of one job
// (docs/architecture.md, "reference work"): everything the candidate side needs from the
// reference side, as plain data, so the two can run in different processes. The reference unit
// (reference_unit.hpp) produces it before any candidate code exists; the candidate unit
// (candidate_unit.hpp) consumes it, in the same process or, after encode/decode, in another one.
//
// What crosses: per trial its kind, seeds, problem constants, output structure and the
// reference's outputs (host tensors); the timing input sets' seeds and expected outputs; the
// pre-import baseline timings; notes and flags. What does not cross: Python objects (models,
// inputs), which the receiving process rebuilds from the seeds and checks against the digests.
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/job_result.hpp"
#include "worker/trial.hpp"
#include "worker/verdict.hpp"

namespace kbench {

struct ReferenceWork {
  // The reference itself failed (problem_error): the job's verdict, no candidate work follows.
  std::optional<Verdict> failure;
  // The expected outputs were left out (shapes and dtypes only; they read back poisoned): the
  // copy a candidate's process gets when its outputs are judged by a trusted one (judge.hpp).
  bool blinded = false;
  std::vector<Trial> trials;       // seed, alt_distribution, alt_shape: the order they are checked in
  std::optional<Trial> recheck;    // post_timing, on the timed instance after timing
  std::vector<Trial> timing_sets;  // set 0 is trials.front(); one expected output each
  std::vector<std::string> baselines;  // baselines the reference unit built ("eager", "inductor")
  // The reference unit built no baselines (`baselines` are the job's names): the candidate unit
  // of another process builds them and times them before its import, once per job, since it
  // must build them anyway to interleave them with the candidate (reference_unit.hpp).
  bool baselines_deferred = false;
  // The controller keeps these baselines' timings (model/kept_reference.hpp): only the first one
  // is built, not timed before the import, and timed for a few rounds beside the candidate, the
  // controller's drift check (measure/baseline_drift.hpp).
  bool short_baselines = false;
  // The timing witness (exec/timing_witness.hpp): the seeds of fresh input sets that only the
  // trusted side knows (the judge computes their expected outputs). The blinded copy keeps only
  // their count.
  std::vector<int> witness_seeds;
  std::size_t witness_count = 0;
  double witness_overhead_s = 0;  // building their inputs, committing and opening their outputs
  // A blinded candidate's warm-up and timed calls get fresh values from seeds the controller
  // sends (exec/call_reveal.hpp), which the judge rebuilds: decided here, in the trusted
  // reference worker, since the candidate's process could claim anything. `fresh_calls_why`
  // says why not when not (integrity_notes.timed_call_check.fresh_inputs).
  bool fresh_calls = false;
  std::string fresh_calls_why;
  std::vector<std::string> trial_notes;
  std::vector<std::string> flags;      // integrity flags raised by the reference side
  double integrity_cost_s = 0;         // check work done on the reference side
  bool timing_comparison_skipped = false;  // the reference writes into its inputs (call_audit)
  nlohmann::json baseline_notes = nlohmann::json::object();
  std::map<std::string, double> pre_import_median_ms;
  // Deferred baselines timed by the reference worker itself (eager only; not in the blinded
  // copy): what the judge holds the candidate worker's baseline samples against
  // (integrity/baseline_cross_check.hpp).
  std::map<std::string, std::vector<double>> trusted_baseline_ms;
  JobResult pre_import;  // timings and protocol of the pre-import baseline run
  // The memory plan the reference unit made (docs/memory.md), for a candidate unit in another
  // process: how many extra trials it keeps on the device (the rest wait on the host; -1: all),
  // what the stale-memory sweep may take (0: no bound), and the footprint and plan as reported.
  int trials_on_device = -1;
  long long sweep_bytes = 0;
  nlohmann::json memory_plan = nlohmann::json::object();
};

// One byte string (worker/tensor_blob.hpp); the same binary reads what it wrote, which the cache
// key of reused reference work pins (torch version, #14). `blinded`: without expected values.
std::string encode_reference_work(const ReferenceWork& work, bool blinded = false);
// Throws std::runtime_error naming what is wrong (truncated, a size that disagrees, a dtype).
ReferenceWork decode_reference_work(const std::string& bytes);

// SHA-256 (hex) of one input: a tensor's dtype, shape and the Merkle root of its bytes, or the
// repr of anything else.
std::string input_digest(const pybind11::handle& input);

}  // namespace kbench
