#include "worker/candidate_unit.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <optional>
#include <sstream>

#include "exec/result_channel.hpp"
#include "measure/baseline_drift.hpp"
#include "measure/sample_stats.hpp"
#include "worker/extension_builds.hpp"
#include "worker/freed_memory.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/gpu_lock_hooks.hpp"
#include "integrity/baseline_cross_check.hpp"
#include "integrity/static_analysis.hpp"
#include "integrity/kernel_share.hpp"
#include "worker/phase_clock.hpp"
#include "worker/phase_signal.hpp"
#include "worker/python_runtime.hpp"
#include "worker/source_verdict.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/trial_judgement.hpp"
#include "worker/witness_groups.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// Triton reports kernel compilation failures at the first call; they are compile errors.
Status candidate_fault_status(const std::string& type, Status otherwise) {
  if (type.find("CompilationError") != std::string::npos || type.rfind("triton.compiler", 0) == 0)
    return Status::compile_error;
  return otherwise;
}

void record(const Verdict& verdict, JobResult& result) {
  result.status = verdict.status;
  result.message = verdict.message;
  result.diagnostics.update(verdict.diagnostics);
}

}  // namespace

CandidateUnit::CandidateUnit(const ProblemContext& context, ReferenceWork& work, ReferenceHandles handles)
    : context_(context), job_(context.job), work_(work), handles_(std::move(handles)), integrity_(context.job),
      baseline_notes_(work.baseline_notes) {
  for (const auto& flag : work_.flags) integrity_.flag(flag);
  integrity_.add_cost(work_.integrity_cost_s);
}

JobResult CandidateUnit::run() {
  DeviceMemory& memory = context_.memory();
  JobResult result;
  result.job = job_;
  result.timings = work_.pre_import.timings;
  result.protocol = work_.pre_import.protocol;
  try {
    if (work_.failure) throw *work_.failure;
    // GPU lock (gpu_lock.hpp): shared from the first device work on, exclusive while timing,
    // released around the candidate's import so it overlaps another worker's timing.
    auto& gpu = GpuLock::instance();
    auto& phase = PhaseClock::instance();
    gpu.hold(GpuLock::Mode::shared);
    if (!handles_.session) {
      phase.enter("reference_rebuild");
      rebuild_handles();
      // Deferred baselines were timed just now: a failing candidate still gets their times.
      result.timings = work_.pre_import.timings;
      result.protocol = work_.pre_import.protocol;
    }
    // The stale-memory sweep gets what the memory plan leaves free (docs/memory.md).
    phase.enter("pre_import_checks");
    phase_ = "harness";
    {
      // The baselines' freed intermediates: out of reach before any candidate code runs.
      CostScope cost(integrity_);
      integrity_.note("freed_memory_released", release_freed_memory(job_.device));
    }
    integrity_.before_import(work_.trials, work_.sweep_bytes);
    phase_ = "candidate";
    gpu.hold(GpuLock::Mode::none);
    // Extension builds before any candidate code runs (docs/extensions.md), lock released.
    phase.enter("extension_builds");
    prepare_extension_builds(job_);
    phase.enter("candidate_import");
    load_candidate();
    integrity_.after_import(context_.problem_code_file);
    phase.enter("correctness");
    gpu.hold(GpuLock::Mode::shared);
    for (const auto& trial : work_.trials) {
      gpu.yield_to_timer();  // between trials a waiting timer goes first (gpu_lock.hpp)
      check_candidate(trial);
    }
    integrity_.after_checks();
    nlohmann::json kinds = nlohmann::json::array();
    for (const auto& trial : work_.trials) kinds.push_back(to_string(trial.kind));
    // Fewer than `seeds` when the memory plan could not keep them (the notes say why).
    int seeds_checked = 0;
    for (const auto& trial : work_.trials) seeds_checked += trial.kind == TrialKind::seed;
    result.diagnostics["correctness"] = {{"seeds_checked", seeds_checked},
                                         {"trials", kinds},
                                         {"max_abs_error", bounds_.max_abs_error},
                                         {"max_rel_error", bounds_.max_rel_error},
                                         {"atol", context_.tolerance.atol},
                                         {"rtol", context_.tolerance.rtol}};
    if (!work_.trial_notes.empty()) result.diagnostics["correctness"]["notes"] = work_.trial_notes;
    phase.enter("timing");
    measure_with_candidate(result);
    run_timing_witness();
    phase.enter("post_timing_recheck");
    recheck_after_timing();
    result.status = Status::ok;
  } catch (const Verdict& verdict) {
    record(memory.explain(verdict, phase_), result);
  } catch (const std::exception& e) {
    // Allocation failures thrown from C++ (c10::OutOfMemoryError) outside any Python call.
    if (!out_of_memory_kind(e.what())) throw;
    record(memory.explain(Verdict{Status::runtime_error, e.what()}, phase_), result);
  }
  result.memory = memory.usage();
  // The reference unit planned in another process: its footprint and plan came with the work.
  if (result.memory->plan.empty()) result.memory->plan = work_.memory_plan;
  if (handles_.audit) {
    for (auto& call : handles_.audit->take_commitments()) commitment_.calls.push_back(std::move(call));
    for (auto& reveal : handles_.audit->take_reveals()) commitment_.reveals.push_back(std::move(reveal));
    integrity_.add_cost(handles_.audit->seconds());
    if (integrity_.enabled("timed_call_check")) integrity_.note("timed_call_check", handles_.audit->summary());
  }
  // The witness's groups were revealed after every sample: last, as in the controller's record.
  for (auto& reveal : witness_reveals_) commitment_.reveals.push_back(std::move(reveal));
  PhaseClock::instance().enter("report");
  if (!baseline_notes_.empty()) result.diagnostics["baselines"] = baseline_notes_;
  report_gpu_lock(result.protocol);
  integrity_.report(result.diagnostics);
  return result;
}

// The work came from another process: its models and inputs are rebuilt here from the seeds
// (and checked against the digests), then the baselines and the timing session over them.
void CandidateUnit::rebuild_handles() {
  auto& trials = work_.trials;
  auto& gpu = GpuLock::instance();  // between rebuilds a waiting timer goes first (gpu_lock.hpp)
  for (auto& trial : trials) {
    gpu.yield_to_timer();
    context_.rebuild(trial, trial.kind == TrialKind::seed && &trial == &trials.front() ? nullptr : &trials.front());
  }
  for (std::size_t i = 0; i < work_.timing_sets.size(); ++i) {
    Trial& set = work_.timing_sets[i];
    if (i == 0) {
      set.model = trials.front().model;
      set.inputs = trials.front().inputs;
    } else {
      gpu.yield_to_timer();
      context_.rebuild(set, &trials.front());
    }
  }
  if (work_.recheck) context_.rebuild(*work_.recheck, &trials.front());
  // The reference unit's memory plan: the extra trials past those it kept on the device wait on
  // the host here too, in the order it placed them (trials, then the recheck).
  if (work_.trials_on_device >= 0 && job_.device.is_cuda()) {
    int placed = 0;
    for (std::size_t i = 1; i < trials.size(); ++i)
      if (placed++ >= work_.trials_on_device) context_.builder->keep_on_host(trials[i], true);
    if (work_.recheck && placed >= work_.trials_on_device) context_.builder->keep_on_host(*work_.recheck, false);
  }
  handles_.baselines = build_baselines(context_, trials.front(), work_.baselines, work_.blinded, baseline_notes_);
  prepare_timing(context_, work_, integrity_, handles_);
  // Deferred by the reference unit: timed here, before the import, as it would have (one build
  // of the baselines per job).
  if (work_.baselines_deferred && !work_.short_baselines) measure_pre_import(context_, handles_.baselines, *handles_.session, work_, phase_);
}

void CandidateUnit::load_candidate() {
  try {
    candidate_module_ = import_file(job_.candidate_file, "kbench_candidate");
  } catch (const py::error_already_set& e) {
    // Found before torch was imported as a rule (source_verdict.hpp); here if the file changed.
    if (e.matches(PyExc_SyntaxError)) throw syntax_error_verdict(e, job_.candidate_file);
    throw Verdict{Status::compile_error, fmt::format("the candidate failed to import: {}", python_error_type(e)),
                  {{"traceback", describe_python_error(e)}}};
  }
  if (!py::hasattr(candidate_module_, "ModelNew")) throw no_model_new_verdict();
}

// Same seed and init args as the reference; when parameter names and shapes agree, the
// reference weights are copied too, so honest candidates need not mimic creation order.
py::object CandidateUnit::build_candidate(const Trial& trial) {
  py::object candidate;
  try {
    // The alt-shape trial builds ModelNew with the problem's constants at their alt values.
    candidate = build_model_with_constants(context_, candidate_module_.attr("ModelNew"), trial.seed, trial.constants);
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::compile_error, fmt::format("ModelNew(...) failed: {}", python_error_type(e)),
                  {{"traceback", describe_python_error(e)}}};
  }
  try {
    py::dict reference_state = trial.model.attr("state_dict")();
    py::dict candidate_state = candidate.attr("state_dict")();
    bool same = py::len(reference_state) == py::len(candidate_state);
    for (auto item : reference_state) {
      if (!same) break;
      same = candidate_state.contains(item.first) &&
             py::bool_(item.second.attr("shape").equal(candidate_state[item.first].attr("shape")));
    }
    if (same && py::len(reference_state) > 0) candidate.attr("load_state_dict")(reference_state);
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::runtime_error, "copying the reference weights into ModelNew failed",
                  {{"traceback", describe_python_error(e)}}};
  }
  return candidate;
}

void CandidateUnit::check_candidate(const Trial& trial) {
  py::object candidate = build_candidate(trial);
  py::tuple args = context_.builder->fresh_copies(trial.inputs);
  if (trial.kind == TrialKind::seed && !timed_candidate_) recheck_args_ = args;
  check_call(trial, candidate, args);
  if (!timed_candidate_) timed_candidate_ = candidate;
}

// One checked call of `candidate` on `args` (clones of the trial's inputs), compared with the
// trial's reference outputs.
void CandidateUnit::check_call(const Trial& trial, const py::object& candidate, const py::tuple& args) {
  const std::string where = trial_name(trial);
  const nlohmann::json at_trial = {{"seed", trial.seed}, {"trial", to_string(trial.kind)}};
  FlatOutputs actual;
  try {
    // Steps of the correctness phase (diagnostics.worker_timeline.steps_s): on CUDA the call's
    // kernels are counted by the comparison, which waits for them.
    const PhaseStep step("candidate_call");
    actual = integrity_.checked_call(trial, args, [&] { return candidate(*args); });
    announce_run_phase();  // compiled and ran once: the run limit applies from here
  } catch (const py::error_already_set& e) {
    const Status status = candidate_fault_status(python_error_type(e), Status::runtime_error);
    nlohmann::json diagnostics = at_trial;
    diagnostics["traceback"] = describe_python_error(e);
    throw Verdict{status, fmt::format("ModelNew.forward raised {} ({})", python_error_type(e), where), diagnostics};
  } catch (const std::invalid_argument& e) {
    throw Verdict{Status::mismatch, e.what(), at_trial};
  }
  if (actual.structure != trial.structure)
    throw Verdict{Status::mismatch,
                  fmt::format("output structure {} expected, got {} ({})", trial.structure, actual.structure, where),
                  at_trial};
  const PhaseStep step(work_.blinded ? "commit_outputs" : "compare_outputs");
  if (work_.blinded) {
    // Commit: the outputs are fixed here; the trusted judge compares them (judge.hpp).
    CommittedTrial committed{trial.kind, trial.seed, {}};
    for (const auto& t : actual.tensors) committed.outputs.push_back(t.detach().to(at::kCPU).clone());
    commitment_.trials.push_back(std::move(committed));
    return;
  }
  judge_trial_outputs(trial, actual.tensors, context_.tolerance, bounds_, integrity_.enabled("trivial_output"));
}

// The timed instance, on a seed it has never seen, written into the very input buffers of its
// first checked call: caches keyed by pointer, id, call count or content all miss, and work
// deferred or batched during timing must be complete when the call returns.
void CandidateUnit::recheck_after_timing() {
  if (!work_.recheck) return;
  CostScope cost(integrity_);
  py::tuple args = context_.builder->fresh_copies(work_.recheck->inputs);
  bool reuse = recheck_args_.size() == args.size();
  for (std::size_t i = 0; reuse && i < args.size(); ++i)
    reuse = is_tensor(args[i]) && is_tensor(recheck_args_[i]) &&
            py::bool_(args[i].attr("shape").equal(recheck_args_[i].attr("shape"))) &&
            args[i].attr("dtype").equal(recheck_args_[i].attr("dtype"));
  if (reuse) {
    for (std::size_t i = 0; i < args.size(); ++i) recheck_args_[i].attr("copy_")(args[i]);
    args = recheck_args_;
  }
  check_call(*work_.recheck, timed_candidate_, args);
}

// The timing witness (exec/timing_witness.hpp): once the controller's clock runs, the timed
// instance on fresh inputs whose seeds arrive only now, its outputs committed and opened in
// groups (witness_groups.hpp); the digest announced closes the window. Exclusive on the GPU, as
// timing is: another job's work must not stretch the window.
void CandidateUnit::run_timing_witness() {
  if (work_.witness_count == 0) return;
  GpuLockScope exclusive(GpuLock::Mode::exclusive);
  const auto line = request_witness_seeds();
  if (!line) throw std::runtime_error("the controller sent no timing witness seeds");
  std::vector<int> seeds;
  std::istringstream in(*line);
  for (int seed; in >> seed;) seeds.push_back(seed);
  if (seeds.size() != work_.witness_count)
    throw std::runtime_error(fmt::format("{} timing witness seeds expected, {} received", work_.witness_count, seeds.size()));
  WitnessGroups groups(witness_group_budget(context_.job.device.is_cuda()));
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    const int seed = seeds[k];
    try {
      // The steps (worker_timeline.steps_s, timing.witness_*) say where an honest window's time
      // went; the candidate's own account, never part of a verdict.
      std::optional<py::tuple> args;
      {
        const PhaseStep step("witness_inputs");
        args.emplace(context_.builder->build_inputs(seed));
      }
      std::vector<at::Tensor> outputs;
      {
        const PhaseStep step("witness_calls");
        outputs = flatten_outputs(timed_candidate_(**args)).tensors;
      }
      groups.add(static_cast<long long>(k), seed, outputs);
    } catch (const py::error_already_set& e) {
      throw Verdict{candidate_fault_status(python_error_type(e), Status::runtime_error),
                    fmt::format("ModelNew.forward raised {} (timing witness, seed {})", python_error_type(e), seed),
                    {{"traceback", describe_python_error(e)}}};
    } catch (const std::invalid_argument& e) {
      throw Verdict{Status::mismatch, fmt::format("{} (timing witness, seed {})", e.what(), seed)};
    }
  }
  groups.finish();  // the window closes
  commitment_.witness = groups.take_calls();
  witness_reveals_ = groups.take_reveals();
}

void CandidateUnit::measure_with_candidate(JobResult& result) {
  std::vector<NamedCallable> variants = {{"candidate", timed_candidate_}};
  variants.insert(variants.end(), handles_.baselines.begin(), handles_.baselines.end());
  // Kept baselines: a short drift sample each, while the candidate goes to its precision.
  std::map<std::string, int> max_rounds;
  if (work_.short_baselines)
    for (const auto& [name, callable] : handles_.baselines)
      max_rounds[name] = short_baseline_rounds(context_.timing.min_samples, context_.timing.samples_per_round);
  ProtocolRun run;
  try {
    run = handles_.session->measure(variants, context_.timing, max_rounds);
  } catch (const VariantError& e) {
    if (e.variant != "candidate") phase_ = "baseline " + e.variant;
    if (e.variant != "candidate")
      throw Verdict{Status::problem_error,
                    fmt::format("baseline {} raised {} while being timed", e.variant, e.python_type),
                    {{"traceback", e.traceback}}};
    throw Verdict{candidate_fault_status(e.python_type, Status::runtime_error),
                  fmt::format("ModelNew.forward raised {} during timing", e.python_type),
                  {{"traceback", e.traceback}}};
  }
  result.timings.clear();
  handles_.session->store(run, context_.timing, result);
  const auto samples = [&](const char* name) {
    const auto it = run.variants.find(name);
    return it == run.variants.end() ? std::vector<double>{} : it->second.samples_ms;
  };
  const auto candidate = run.variants.find("candidate");
  integrity_.after_timing(samples("candidate"),
                          candidate == run.variants.end() ? 0 : candidate->second.offstream_samples,
                          samples("eager"));
  check_kernel_share();
  nlohmann::json pre = nlohmann::json::object();
  // On the CPU the interleaved candidate evicts the baseline's caches and a loaded machine moves
  // medians, so the bound there is loose (kCpuBaselineRule), and beside interpreted Triton kernels
  // there is none.
  const BaselineRule rule = job_.device.is_cuda() ? kPreImportCudaRule : kCpuBaselineRule;
  const bool bounded = !kernels_interpreted_on_host(job_.candidate_file, job_.device.is_cuda());
  for (const auto& [name, median] : work_.pre_import_median_ms) {
    pre[name] = median;
    if (!bounded) continue;
    // The pre-import run is this process's trusted figure: no candidate code existed yet. A
    // baseline that got slower once the candidate was imported was made slower: a global hook,
    // a patched layer, a dispatcher override, Python holding the GIL from another thread,
    // whatever the snapshot misses (red-teaming found a dozen ways, 2026-12-03/05). The cross
    // check of isolated candidates does the same against the reference worker's figure.
    const auto it = run.variants.find(name);
    if (it == run.variants.end() || it->second.samples_ms.empty()) continue;
    const double after = summarize(it->second.samples_ms).median;
    if (after > rule.factor * median && after - median > rule.margin_ms) {
      const std::string evidence = fmt::format("the {} baseline's median went from {:.4g} ms before the candidate's "
                                               "import to {:.4g} ms beside it ({:.3g}x; at most {:g}x or {:g} ms more)",
                                               name, median, after, after / median, rule.factor, rule.margin_ms);
      if (integrity_.enabled("baseline_cross_check")) throw rejection("baseline_cross_check", evidence);
      result.diagnostics["flags"].push_back(fmt::format(
          "baseline_slowed_after_candidate_import: {} {:.4g} ms -> {:.4g} ms", name, median, after));
    }
  }
  if (!pre.empty()) result.protocol["pre_import_median_ms"] = pre;
}

// CUDA, strict, require_custom_kernel: custom kernels must do a real share of the GPU work.
void CandidateUnit::check_kernel_share() {
  if (!job_.settings.require_custom_kernel || !integrity_.enabled("custom_kernel_share") ||
      !job_.device.is_cuda())
    return;
  CostScope cost(integrity_);
  std::optional<KernelShare> share;
  try {
    share = measure_kernel_share(timed_candidate_, context_.builder->fresh_copies(work_.trials.front().inputs),
                                 integrity_.own_kernels());
  } catch (const py::error_already_set& e) {
    integrity_.note("kernel_share_error", describe_python_error(e, 1000));
    return;
  }
  if (!share) return;
  integrity_.note("kernel_share", {{"share", share->share}, {"custom_us", share->custom_us},
                                   {"total_us", share->total_us}, {"delegated_us", share->delegated_us},
                                   {"kernels", share->kernels}});
  if (share->share < job_.settings.min_custom_kernel_share)
    throw rejection(
        "custom_kernel_share",
        fmt::format("custom kernels took {:.0f}% of the GPU time of one call outside torch's GEMM/convolution "
                    "operators ({:.0f}% of it was there; minimum {:.0f}%)",
                    100 * share->share, share->total_us > 0 ? 100 * share->delegated_us / share->total_us : 0.0,
                    100 * job_.settings.min_custom_kernel_share),
        {{"kernels", share->kernels}});
}

}  // namespace kbench
