#pragma once
// The reference unit of one job: the correctness trials and their expected outputs, the
// baselines (eager, Inductor) and their pre-import timing, the timing input sets and their
// expected outputs. Runs before any candidate code exists in its process, and loads none, so
// its process can be a trusted one (docs/threat-model.md). Its product is a ReferenceWork
// (reference_work.hpp); in the same process a candidate unit also takes its handles.
#include <memory>
#include <string>
#include <vector>

#include "integrity/call_audit.hpp"
#include "exec/memory_plan.hpp"
#include "integrity/integrity_monitor.hpp"
#include "worker/problem_context.hpp"
#include "worker/reference_work.hpp"
#include "worker/fresh_inputs.hpp"
#include "worker/timing_session.hpp"

namespace kbench {

// Python objects and timing state built for the work, valid only in the process that built them.
struct ReferenceHandles {
  std::vector<NamedCallable> baselines;
  std::unique_ptr<CallAudit> audit;  // declared before session, which points to them
  std::unique_ptr<FreshInputs> fresh;
  std::unique_ptr<TimingSession> session;
};

class ReferenceUnit {
 public:
  explicit ReferenceUnit(const ProblemContext& context);

  // Everything above, in this order. A fault of the problem ends it with work.failure set.
  // `defer_baselines`: the trials and timing sets only (work.baselines_deferred), for work a
  // candidate unit of another process takes, which builds and times the baselines itself.
  // `short_baselines`: the controller keeps the baselines' timings (ReferenceWork::short_baselines).
  ReferenceWork run(bool defer_baselines = false, bool short_baselines = false);
  // For a candidate unit in this process: the baselines, the call audit, the timing session.
  ReferenceHandles take_handles() { return std::move(handles_); }

 private:
  void build_trials(ReferenceWork& work);
  void plan_memory_use(ReferenceWork& work, int extra_trials);
  void place(Trial& trial, bool with_model);
  void flag_degenerate_reference(const ReferenceWork& work);
  void add_alt_distribution_trial(ReferenceWork& work, bool poison);
  void add_alt_shape_trial(ReferenceWork& work, bool poison);
  void build_timing_sets(ReferenceWork& work);
  void measure_baselines(ReferenceWork& work, bool short_baselines);
  void add_witness_sets(ReferenceWork& work);
  void measure_trusted_baselines(ReferenceWork& work);

  const ProblemContext& context_;
  IntegrityMonitor integrity_;  // for the levels and the cost of the reference-side checks
  ReferenceHandles handles_;
  MemoryPlan plan_;
  int placed_ = 0;                 // extra trials placed by the plan so far
  std::string phase_ = "reference";  // whose work is running: what an out-of-memory error names
};

// The baselines named in `names` ("eager": the first trial's model; "inductor": it compiled
// and checked against the eager outputs unless `blinded`). A baseline that fails is noted in
// `notes` and left out.
std::vector<NamedCallable> build_baselines(const ProblemContext& context, const Trial& first,
                                           const std::vector<std::string>& names, bool blinded,
                                           nlohmann::json& notes);

// The pre-import run of the baselines (a short one: max_time_s <= 2 s) into work.pre_import and
// work.pre_import_median_ms, with no candidate code in the process yet. Nothing in
// kernelbench timing mode. A baseline that fails names itself in `phase` (what an out-of-memory
// error is blamed on).
void measure_pre_import(const ProblemContext& context, const std::vector<NamedCallable>& baselines,
                        TimingSession& session, ReferenceWork& work, std::string& phase);

// Why no call of this job can get fresh values ("" when they can): graph mode on CUDA.
std::string fresh_values_excluded(const ProblemContext& context);
// Whether a blinded candidate's calls get fresh values (ReferenceWork::fresh_calls), decided by
// the trusted reference worker: fresh draws fit the timing sets' layout and are a function of
// their seed, so the judge can rebuild them.
void decide_fresh_calls(const ProblemContext& context, ReferenceWork& work);

// The timing session over the work's timing sets, with their call audit (timed_call_check,
// stale_memory) and, where they can be built and the work is not blinded, fresh values for
// every call: the same for a reference unit and a candidate unit rebuilding the work.
void prepare_timing(const ProblemContext& context, const ReferenceWork& work, const IntegrityMonitor& levels,
                    ReferenceHandles& handles);

// Every input of every trial of `work` digested (SHA-256), so another process can check that it
// rebuilt the same inputs from the seeds.
void add_input_digests(ReferenceWork& work);

}  // namespace kbench
