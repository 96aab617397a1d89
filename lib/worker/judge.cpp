#include "worker/judge.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "correctness/output_comparison.hpp"
#include "integrity/tensor_guard.hpp"
#include "integrity/integrity_monitor.hpp"
#include "worker/problem_context.hpp"
#include "worker/trial_judgement.hpp"
#include "worker/verdict.hpp"

namespace kbench {
namespace {

const CommittedTrial& committed_for(const Commitment& commitment, const Trial& trial) {
  for (const auto& c : commitment.trials)
    if (c.kind == trial.kind && c.seed == trial.seed) return c;
  throw rejection("commitment", fmt::format("no outputs were committed for the {}", trial_name(trial)));
}

// One committed call: its sampled values against the expected output of its value set.
void judge_call(const ReferenceWork& work, const CommittedCall& committed, const Tolerance& tolerance) {
  const CallRecord& call = committed.call;
  const std::string who = describe_call("candidate", call);
  nlohmann::json evidence = {{"call", call.index}, {"warmup", call.warmup}, {"input_set", call.value_set}};
  if (call.value_set < 0 || std::size_t(call.value_set) >= work.timing_sets.size())
    throw rejection("commitment", fmt::format("{} names no input set", who), evidence);
  const auto& expected = work.timing_sets[std::size_t(call.value_set)].expected;
  if (committed.values.size() != expected.size())
    throw rejection("timed_call_check", fmt::format("{} committed {} outputs, {} expected", who,
                                                    committed.values.size(), expected.size()), evidence);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const at::Tensor& indices = committed.indices[i];
    const int64_t numel = expected[i].numel();
    if (indices.scalar_type() != at::kLong || indices.dim() != 1 ||
        (indices.numel() > 0 && (indices.min().item<int64_t>() < 0 || indices.max().item<int64_t>() >= numel)))
      throw rejection("commitment", fmt::format("{}: sampled indices of output {} are not indices of it", who, i),
                      evidence);
    const at::Tensor want = at::take(expected[i], indices);
    ComparisonResult cmp;
    try {
      cmp = compare_outputs({want}, {committed.values[i]}, tolerance);
    } catch (const std::exception& e) {
      evidence["output_index"] = i;
      throw rejection("timed_call_check", fmt::format("{} returned output {} that cannot be compared", who, i), evidence);
    }
    if (cmp.ok) continue;
    evidence["output_index"] = i;
    evidence["elements_checked"] = want.numel();
    throw rejection("timed_call_check", fmt::format("{} returned wrong values in output {}: {}", who, i, cmp.reason),
                    evidence);
  }
}

}  // namespace

JobResult judge_commitment(const Job& job, const ReferenceWork& work, const Commitment& commitment,
                           JobResult provisional, const std::string& witness_sha256) {
  if (provisional.status != Status::ok) return provisional;
  if (work.blinded) throw std::runtime_error("the judge needs the full reference work, not the blinded copy");
  const Tolerance tolerance = job_tolerance(job);
  ErrorBounds bounds;
  try {
    // In the order of the single pass: correctness trials, the timed calls, the recheck.
    for (const auto& trial : work.trials) judge_trial_outputs(trial, committed_for(commitment, trial).outputs, tolerance, bounds);
    const auto timed = provisional.timings.find("candidate");
    const bool calls_checked = IntegrityMonitor::enabled_for(job, "timed_call_check") && !work.timing_comparison_skipped;
    // At least one committed call per sample claimed: samples without calls are not samples.
    if (calls_checked && timed != provisional.timings.end() && commitment.calls.size() < timed->second.samples_ms.size())
      throw rejection("commitment", fmt::format("{} timing samples claimed, {} calls committed",
                                                timed->second.samples_ms.size(), commitment.calls.size()));
    for (const auto& call : commitment.calls) judge_call(work, call, tolerance);
    if (work.recheck) judge_trial_outputs(*work.recheck, committed_for(commitment, *work.recheck).outputs, tolerance, bounds);
    if (!work.witness_sets.empty()) {
      // Computed inside the controller's window: these outputs, and no others, were announced.
      if (commitment.witness.size() != work.witness_sets.size() || witness_digest(commitment.witness) != witness_sha256)
        throw rejection("timing_witness", fmt::format("the {} witness outputs committed are not the ones announced "
                                                      "when the controller's window closed",
                                                      commitment.witness.size()));
      ErrorBounds witness_bounds;
      for (std::size_t i = 0; i < work.witness_sets.size(); ++i) {
        const Trial& set = work.witness_sets[i];
        if (commitment.witness[i].seed != set.seed)
          throw rejection("timing_witness", fmt::format("witness call {} ran on seed {}, not {}", i,
                                                        commitment.witness[i].seed, set.seed));
        judge_trial_outputs(set, commitment.witness[i].outputs, tolerance, witness_bounds);
      }
    }
  } catch (const Verdict& verdict) {
    provisional.status = verdict.status;
    provisional.message = verdict.message;
    provisional.diagnostics.update(verdict.diagnostics);
  }
  auto& correctness = provisional.diagnostics["correctness"];
  correctness["max_abs_error"] = bounds.max_abs_error;
  correctness["max_rel_error"] = bounds.max_rel_error;
  provisional.diagnostics["judged"] = {{"trials", commitment.trials.size()}, {"calls", commitment.calls.size()}};
  return provisional;
}

}  // namespace kbench
