#include "worker/judge.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <chrono>
#include <set>

#include "correctness/output_comparison.hpp"
#include "integrity/baseline_cross_check.hpp"
#include "integrity/static_analysis.hpp"
#include "measure/sample_stats.hpp"
#include "integrity/output_opening.hpp"
#include "integrity/tensor_guard.hpp"
#include "integrity/integrity_monitor.hpp"
#include "worker/phase_clock.hpp"
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

// The reference's outputs on the values of a fresh-valued call, from the controller's seed of the
// reveal it names: the reveal must be an earlier one (its seed existed before the call's sample),
// and each (reveal, buffer) pair gives the values of one call only.
std::vector<at::Tensor> fresh_expected_for(CallRecord& call, int reveal, const std::vector<SampleReveal>& reveals,
                                           std::set<std::pair<int, int>>& drawn, const FreshExpected& fresh_expected,
                                           nlohmann::json& evidence) {
  const std::string who = describe_call("candidate", call);
  if (call.fresh_reveal < 0 || call.fresh_reveal >= reveal)
    throw rejection("commitment", fmt::format("{} names no earlier reveal for its fresh values (reveal {} under {})",
                                              who, call.fresh_reveal, reveal), evidence);
  if (reveals[std::size_t(call.fresh_reveal)].witness)
    throw rejection("commitment", fmt::format("{} names a timing witness group's reveal for its fresh values", who),
                    evidence);
  if (!drawn.emplace(call.fresh_reveal, call.value_set).second)
    throw rejection("commitment", fmt::format("{} reuses the fresh values of reveal {}, buffer {}", who,
                                              call.fresh_reveal, call.value_set), evidence);
  call.fresh_seed = fresh_call_seed(reveals[std::size_t(call.fresh_reveal)].seed, call.value_set);
  evidence["fresh_seed"] = call.fresh_seed;
  // Where the reference ran: check_opening gathers the opened elements there.
  return fresh_expected(call.fresh_seed);
}

// Output `i` of a committed call, opened at the leaves `seed` names for its place in its sample,
// against `expected` under that output's tolerance: a throw is a broken opening, and a fault in
// the values names the rule the output is held to.
std::optional<OpeningFault> judge_opening(const OpenedOutput& opened, const at::Tensor& expected, std::uint64_t seed,
                                          std::size_t place_in_sample, std::size_t i, const CallTolerances& tolerance,
                                          int64_t* checked = nullptr) {
  const at::Tensor want = expected.contiguous();
  const auto positions =
      opening_positions(seed, place_in_sample, i, merkle_leaves(want.nbytes()), std::size_t(kCheckedElementsPerCall));
  try {
    auto fault = check_opening(opened, positions, want, tolerance.at(i), checked);
    if (fault && !fault->commitment_broken) fault->what += tolerance.note(i);
    return fault;
  } catch (const std::exception& e) {
    return OpeningFault{std::string(e.what()).substr(0, 1000), true};
  }
}

// One committed call: the leaves its sample's seed names, proved against the roots it
// announced, against the expected output of its value set (fresh values: of its seed).
void judge_call(const ReferenceWork& work, CommittedCall committed, const std::vector<SampleReveal>& reveals,
                std::set<std::pair<int, int>>& drawn, const FreshExpected& fresh_expected, const CallTolerances& tolerance) {
  CallRecord& call = committed.call;
  const std::uint64_t seed = reveals[std::size_t(committed.reveal)].seed;
  nlohmann::json evidence = {{"call", call.index}, {"warmup", call.warmup}, {"input_set", call.value_set}};
  if (call.value_set < 0 || std::size_t(call.value_set) >= work.timing_sets.size())
    throw rejection("commitment", fmt::format("{} names no input set", describe_call("candidate", call)), evidence);
  if (!work.fresh_calls && call.fresh_reveal >= 0)
    throw rejection("commitment", fmt::format("{} claims fresh values no seed was sent for", describe_call("candidate", call)),
                    evidence);
  const std::vector<at::Tensor> expected =
      work.fresh_calls ? fresh_expected_for(call, committed.reveal, reveals, drawn, fresh_expected, evidence)
                       : work.timing_sets[std::size_t(call.value_set)].expected;
  const std::string who = describe_call("candidate", call);
  if (committed.outputs.size() != expected.size())
    throw rejection("timed_call_check", fmt::format("{} committed {} outputs, {} expected", who,
                                                    committed.outputs.size(), expected.size()), evidence);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    int64_t checked = 0;
    const auto fault = judge_opening(committed.outputs[i], expected[i], seed, std::size_t(committed.place_in_sample), i,
                                     tolerance, &checked);
    if (!fault) continue;
    evidence["output_index"] = i;
    evidence["elements_checked"] = checked;
    if (fault->commitment_broken)
      throw rejection("commitment", fmt::format("{}, output {}: {}", who, i, fault->what), evidence);
    throw rejection("timed_call_check", fmt::format("{} returned wrong values in output {}: {}", who, i, fault->what),
                    evidence);
  }
}

// Every sample's calls, in order: the roots committed under reveal r are the ones whose digest
// was announced before r's seed was drawn, and every reveal answered has its calls.
// With fresh values, reveal 0 is the opening one: its seed gives the first sample's values.
void judge_calls(const ReferenceWork& work, const Commitment& commitment, const std::vector<SampleReveal>& reveals,
                 const FreshExpected& fresh_expected, const CallTolerances& tolerance) {
  const auto& calls = commitment.calls;
  std::size_t k = 0;
  std::set<std::pair<int, int>> drawn;  // (reveal, buffer) of every fresh call judged
  if (work.fresh_calls) {
    if (!fresh_expected) throw std::runtime_error("the judge was given no reference for fresh-valued calls");
    if (!calls.empty() && (reveals.empty() || reveals.front().digest != fresh_start_digest()))
      throw rejection("commitment", "the calls' fresh values were not opened by the controller's first seed");
  }
  for (std::size_t r = work.fresh_calls && !reveals.empty() ? 1 : 0; r < reveals.size(); ++r) {
    if (reveals[r].witness) continue;  // judge_witness's
    const std::size_t first = k;
    std::vector<std::string> lines;
    for (; k < calls.size() && calls[k].reveal == int(r); ++k) {
      if (calls[k].place_in_sample != int(k - first))
        throw rejection("commitment", fmt::format("the calls of sample {} are out of order", r));
      std::vector<OpenedOutput> roots = calls[k].outputs;
      lines.push_back(commitment_line(calls[k].call.index, calls[k].call.value_set, calls[k].call.warmup, roots,
                                      calls[k].call.fresh_reveal));
    }
    if (lines.empty()) throw rejection("commitment", fmt::format("reveal {} was asked for, and no call was committed under it", r));
    if (sample_digest(lines) != reveals[r].digest)
      throw rejection("commitment", fmt::format("the calls committed under reveal {} are not the ones announced before it", r));
    for (std::size_t j = first; j < k; ++j) judge_call(work, calls[j], reveals, drawn, fresh_expected, tolerance);
  }
  if (k != calls.size())
    throw rejection("commitment", fmt::format("{} calls were committed under no reveal the controller answered", calls.size() - k));
}

// The timing witness's calls (exec/timing_witness.hpp, worker/witness_groups.hpp): one per seed
// the controller sent, in order, committed in groups. Every group but the last announced by a
// reveal the controller answered inside its window, the last by the window's end: the digest
// of all the groups' digests, read as the clock stopped and answered with the last seed (the
// controller records both marked `witness`). Then each call's opened leaves against the
// reference's outputs on its seed's inputs, computed here one call at a time.
void judge_witness(const ReferenceWork& work, const Commitment& commitment, const std::vector<SampleReveal>& reveals,
                   const std::string& witness_sha256, const FreshExpected& witness_expected,
                   const CallTolerances& tolerance) {
  if (!witness_expected) throw std::runtime_error("the judge was given no reference for the timing witness");
  std::vector<const SampleReveal*> groups;
  for (const auto& r : reveals)
    if (r.witness) groups.push_back(&r);
  const auto& calls = commitment.witness;
  const auto& seeds = work.witness_seeds;
  if (calls.size() != seeds.size())
    throw rejection("timing_witness",
                    fmt::format("{} timing witness calls committed, {} seeds sent", calls.size(), seeds.size()));
  if (groups.empty() || groups.back()->digest != witness_sha256)
    throw rejection("timing_witness", "the timing witness's last group was not opened under the seed that answered "
                                      "the window's end");
  std::vector<std::string> digests;
  std::size_t k = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::size_t first = k;
    std::vector<std::string> lines;
    for (; k < calls.size() && calls[k].reveal == int(g); ++k) {
      const CommittedCall& c = calls[k];
      if (c.place_in_sample != int(k - first) || c.call.index != static_cast<long long>(k) ||
          c.call.fresh_seed != seeds[k])
        throw rejection("timing_witness",
                        fmt::format("witness call {} is not the call on seed {} in its place", k, seeds[k]));
      lines.push_back(witness_call_line(c.call.index, c.call.fresh_seed, c.outputs));
    }
    digests.push_back(lines.empty() ? std::string() : sample_digest(lines));
    // The last group's digest is inside the window's end, not announced alone.
    const bool announced = g + 1 < groups.size() ? digests.back() == groups[g]->digest
                                                 : witness_digest(digests) == witness_sha256;
    if (lines.empty() || !announced)
      throw rejection("timing_witness", fmt::format("the witness calls committed under group {} are not the ones "
                                                    "announced before its leaves were drawn",
                                                    g));
  }
  if (k != calls.size())
    throw rejection("timing_witness", fmt::format("{} witness calls were committed under no reveal inside the window",
                                                  calls.size() - k));
  for (const CommittedCall& c : calls) {
    const std::string who = fmt::format("timing witness call {} (seed {})", c.call.index, c.call.fresh_seed);
    const std::vector<at::Tensor> expected = witness_expected(c.call.fresh_seed);
    if (c.outputs.size() != expected.size())
      throw Verdict{Status::mismatch,
                    fmt::format("{}: {} outputs, {} expected", who, c.outputs.size(), expected.size())};
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const auto fault = judge_opening(c.outputs[i], expected[i], groups[std::size_t(c.reveal)]->seed,
                                       std::size_t(c.place_in_sample), i, tolerance);
      if (!fault) continue;
      if (fault->commitment_broken)
        throw rejection("timing_witness", fmt::format("{}, output {}: {}", who, i, fault->what),
                        {{"call", c.call.index}, {"seed", c.call.fresh_seed}, {"output_index", i}});
      throw Verdict{Status::mismatch, fmt::format("{}, output {}: {}", who, i, fault->what),
                    {{"mismatch", {{"trial", "timing_witness"}, {"seed", c.call.fresh_seed}, {"output_index", i}}}}};
    }
  }
}

// A source of the reference's outputs, counted and timed; timed() is empty when the source is.
struct ReferenceCalls {
  const FreshExpected& source;
  double seconds = 0;
  long long calls = 0;
  FreshExpected timed() {
    if (!source) return {};
    return [this](long long seed) {
      const auto start = std::chrono::steady_clock::now();
      auto outputs = source(seed);
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ++calls;
      return outputs;
    };
  }
};

// The baseline samples the candidate's process reported against the reference worker's: a
// mismatch is refused, on CUDA tightly (both timed alone on the GPU), on the CPU loosely (the
// interleaved candidate evicts the baseline's caches, a loaded machine moves medians:
// kCpuBaselineRule), and beside interpreted Triton kernels on the CPU only noted.
void cross_check_baselines(const Job& job, const ReferenceWork& work, JobResult& provisional) {
  if (!IntegrityMonitor::enabled_for(job, "baseline_cross_check")) return;
  const bool bounded = !kernels_interpreted_on_host(job.candidate_file, job.device.is_cuda());
  for (const auto& [name, trusted] : work.trusted_baseline_ms) {
    const auto reported = provisional.timings.find(name);
    if (reported == provisional.timings.end() || reported->second.samples_ms.empty() || trusted.empty()) continue;
    provisional.diagnostics["integrity_notes"]["baseline_cross_check"][name] = {
        {"reported_median_ms", summarize(reported->second.samples_ms).median},
        {"trusted_median_ms", summarize(trusted).median}};
    const auto disagreement = baseline_disagreement(name, reported->second.samples_ms, trusted,
                                                    baseline_rule(name, job.device.is_cuda()));
    if (disagreement && bounded) throw rejection("baseline_cross_check", *disagreement);
  }
}

}  // namespace

JobResult judge_commitment(const Job& job, const ReferenceWork& work, const Commitment& commitment,
                           JobResult provisional, const std::string& witness_sha256,
                           const std::vector<CallReveal>* reveals, const FreshExpected& fresh_expected,
                           const FreshExpected& witness_expected) {
  if (provisional.status != Status::ok) return provisional;
  if (work.blinded) throw std::runtime_error("the judge needs the full reference work, not the blinded copy");
  // The reference calls for fresh-valued and witness calls, timed: their cost is the judge's
  // share of the check.
  ReferenceCalls fresh{fresh_expected}, witness{witness_expected};
  const Tolerance tolerance = job_tolerance(job);
  const bool trivial_output = IntegrityMonitor::enabled_for(job, "trivial_output");
  ErrorBounds bounds;
  try {
    // In the order of the single pass: correctness trials, the timed calls, the recheck. Each
    // step is a phase (diagnostics.judged.phases_s; a stopped job's line names the one it was in).
    PhaseClock::instance().enter("judge_trials");
    for (const auto& trial : work.trials)
      judge_trial_outputs(trial, committed_for(commitment, trial).outputs, tolerance, bounds, trivial_output);
    const auto timed = provisional.timings.find("candidate");
    const bool calls_checked = IntegrityMonitor::enabled_for(job, "timed_call_check") && !work.timing_comparison_skipped;
    // At least one committed call per sample claimed: samples without calls are not samples.
    if (calls_checked && timed != provisional.timings.end() && commitment.calls.size() < timed->second.samples_ms.size())
      throw rejection("commitment", fmt::format("{} timing samples claimed, {} calls committed",
                                                timed->second.samples_ms.size(), commitment.calls.size()));
    // The controller's record of the reveals when it ran the candidate; the candidate's own only
    // for a worker run without one (by hand, in tests).
    std::vector<SampleReveal> trusted;
    if (reveals)
      for (const auto& r : *reveals) trusted.push_back({r.digest, r.seed, r.witness});
    PhaseClock::instance().enter("judge_calls");
    const CallTolerances call_tolerance = call_tolerances(work.trials, tolerance, trivial_output);
    judge_calls(work, commitment, reveals ? trusted : commitment.reveals, fresh.timed(), call_tolerance);
    PhaseClock::instance().enter("judge_recheck");
    if (work.recheck)
      judge_trial_outputs(*work.recheck, committed_for(commitment, *work.recheck).outputs, tolerance, bounds,
                          trivial_output);
    PhaseClock::instance().enter("judge_witness");
    if (!work.witness_seeds.empty())
      judge_witness(work, commitment, reveals ? trusted : commitment.reveals, witness_sha256, witness.timed(),
                    call_tolerance);
    PhaseClock::instance().enter("judge_baselines");
    cross_check_baselines(job, work, provisional);
  } catch (const Verdict& verdict) {
    provisional.status = verdict.status;
    provisional.message = verdict.message;
    provisional.diagnostics.update(verdict.diagnostics);
  }
  auto& correctness = provisional.diagnostics["correctness"];
  correctness["max_abs_error"] = bounds.max_abs_error;
  correctness["max_rel_error"] = bounds.max_rel_error;
  provisional.diagnostics["judged"] = {{"trials", commitment.trials.size()},
                                       {"calls", commitment.calls.size()},
                                       {"reveals", commitment.reveals.size()},
                                       {"reveals_from", reveals ? "controller" : "candidate"}};
  if (work.fresh_calls)
    provisional.diagnostics["judged"]["fresh_values"] = {{"reference_calls", fresh.calls},
                                                         {"reference_s", fresh.seconds}};
  if (!work.witness_seeds.empty())
    provisional.diagnostics["judged"]["witness"] = {{"calls", commitment.witness.size()},
                                                    {"reference_calls", witness.calls},
                                                    {"reference_s", witness.seconds}};
  return provisional;
}

}  // namespace kbench
