#include "worker/reference_unit.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <random>

#include "core/text.hpp"
#include "correctness/output_comparison.hpp"
#include "integrity/tensor_guard.hpp"
#include "exec/timing_witness.hpp"
#include "integrity/call_audit.hpp"
#include "integrity/output_opening.hpp"
#include "measure/sample_stats.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/gpu_lock_hooks.hpp"
#include "worker/phase_clock.hpp"
#include "worker/python_runtime.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/trial_judgement.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

bool all_finite(const std::vector<at::Tensor>& tensors) {
  for (const auto& t : tensors)
    if (at::isFloatingType(t.scalar_type()) && t.numel() > 0 && !t.isfinite().all().item<bool>()) return false;
  return true;
}

// Compiles the reference with Inductor and checks it against the eager outputs; a baseline that
// fails is noted and skipped, it never fails the candidate.
std::optional<py::object> compile_inductor(const ProblemContext& context, const Trial& trial, bool blinded,
                                           nlohmann::json& notes) {
  try {
    // No per-kernel autotune files: a statically launched kernel restored from the FX graph cache
    // keeps the absolute path of the process that compiled it, and kept reference work copies a
    // trusted worker's cache into each job's dir, so the job's first call wrote its best config
    // into the trusted dir, outside the sandbox's writable tree (H100 2026-12-06: EACCES, the
    // Inductor baseline lost, and Dynamo's retry started compile workers after the process
    // snapshot: a `child_process` rejection of an honest kernel). Each process tunes its own.
    py::object inductor_config = py::module_::import("torch._inductor.config");
    if (py::hasattr(inductor_config, "autotune_local_cache")) inductor_config.attr("autotune_local_cache") = false;
    py::object compiled =
        context.torch.attr("compile")(trial.model, py::arg("mode") = context.job.settings.inductor_mode);
    FlatOutputs out = flatten_outputs(compiled(*context.builder->fresh_copies(trial.inputs)));
    // Inductor may legitimately round differently; it is a baseline, so note, don't fail. With
    // blinded work (no candidate code here yet) eager is run again to compare with.
    FlatOutputs eager;
    if (blinded) eager = flatten_outputs(trial.model(*context.builder->fresh_copies(trial.inputs)));
    const auto cmp = compare_outputs(blinded ? eager.tensors : trial.expected, out.tensors, context.tolerance);
    if (!cmp.ok) notes["inductor"]["warning"] = "differs from eager: " + cmp.reason;
    // Correct outputs of the first trial's inputs: nothing the candidate may find later.
    std::vector<at::Tensor> keep;
    for (const char* what : {"parameters", "buffers"})
      for (auto t : trial.model.attr(what)()) keep.push_back(to_tensor(t));
    std::vector<at::Tensor> correct = out.tensors;
    correct.insert(correct.end(), eager.tensors.begin(), eager.tensors.end());
    for (const auto& t : correct) {
      bool shared = false;
      for (const auto& k : keep) shared = shared || same_storage(t, k);
      if (!shared) poison(t);
    }
    return compiled;
  } catch (const py::error_already_set& e) {
    notes["inductor"]["error"] = describe_python_error(e, 2000);
  } catch (const std::exception& e) {
    notes["inductor"]["error"] = e.what();
  }
  return std::nullopt;
}

// Between trials and before a compile, a timer waiting for the lock goes first (gpu_lock.hpp:
// the convoy); the wait is the reference phase's `lock_yield` step.
void yield_to_waiting_timer() {
  PhaseStep step("lock_yield");
  GpuLock::instance().yield_to_timer();
}

// The baselines this job builds: the job's, or with kept baselines only the first, the one its
// drift sample times (ReferenceWork::short_baselines).
std::vector<std::string> baselines_built(const Job& job, bool short_baselines) {
  std::vector<std::string> names = job.settings.baselines;
  if (short_baselines && names.size() > 1) names.resize(1);
  return names;
}

}  // namespace

ReferenceUnit::ReferenceUnit(const ProblemContext& context) : context_(context), integrity_(context.job) {}

ReferenceWork ReferenceUnit::run(bool defer_baselines, bool short_baselines) {
  ReferenceWork work;
  work.short_baselines = short_baselines;
  DeviceMemory& memory = context_.memory();
  try {
    build_trials(work);
    if (defer_baselines) {
      build_timing_sets(work);
      work.baselines = baselines_built(context_.job, short_baselines);
      work.baselines_deferred = true;
      if (integrity_.enabled("timing_witness") && !work.timing_comparison_skipped) add_witness_sets(work);
      if (integrity_.enabled("timed_call_check")) {
        CostScope cost(integrity_);
        decide_fresh_calls(context_, work);
      }
      if (integrity_.enabled("baseline_cross_check")) measure_trusted_baselines(work);
    } else {
      measure_baselines(work, short_baselines);
    }
  } catch (const Verdict& verdict) {
    work.failure = memory.explain(verdict, phase_);
  } catch (const std::exception& e) {
    // Allocation failures thrown from C++ (c10::OutOfMemoryError) outside any Python call.
    if (!out_of_memory_kind(e.what())) throw;
    work.failure = memory.explain(Verdict{Status::problem_error, e.what()}, phase_);
  }
  work.flags = integrity_.flags();
  work.integrity_cost_s = integrity_.cost_s();
  return work;
}

// The seed trials, then (by level) the alt-distribution, alt-shape and post-timing trials:
// every reference output is computed here, before the candidate exists.
// The first seed trial is the footprint (docs/memory.md): the plan made from it decides
// which of the trials built after it keep their inputs and weights on the device, which wait
// on the host and which are not run (seeds first; post-timing, alt distribution and alt
// shape are the last to go).
void ReferenceUnit::build_trials(ReferenceWork& work) {
  const Job& job = context_.job;
  const TrialBuilder& builder = *context_.builder;
  DeviceMemory& memory = context_.memory();
  phase_ = "reference";
  const bool poison = integrity_.enabled("stale_memory");
  bool alt_distribution = job.settings.alt_inputs && integrity_.enabled("alt_distribution");
  bool alt_shape = !job.alt_size_overrides.empty() && integrity_.enabled("alt_shape");
  bool post_timing = integrity_.enabled("post_timing_recheck");
  try {
    const int seed_count = job.settings.seeds;
    int seeds = seed_count;
    for (int i = 0; i < seeds; ++i) {
      yield_to_waiting_timer();
      const int seed = trial_seed(i);
      py::object model = builder.build_model(context_.problem.attr("Model"), seed);
      py::list inputs = builder.build_inputs(seed);
      if (i == 0) memory.begin_call();
      work.trials.push_back(builder.run_reference(TrialKind::seed, seed, model, inputs, poison));
      if (i != 0) {
        place(work.trials.back(), true);
        continue;
      }
      plan_memory_use(work, seed_count - 1 + alt_distribution + alt_shape + post_timing);
      int keep = plan_.trials_on_device + plan_.trials_on_host;
      for (bool* special : {&post_timing, &alt_distribution, &alt_shape})
        if (*special && keep > 0) --keep;
        else *special = false;
      seeds = 1 + std::min(seed_count - 1, keep);
      if (plan_.trials_dropped > 0)
        work.trial_notes.push_back(fmt::format(
            "memory plan: {} of {} extra trials not run (their expected outputs would not fit the host "
            "budget of {}); {} seed(s) checked",
            plan_.trials_dropped, plan_.trials_dropped + plan_.trials_on_device + plan_.trials_on_host,
            bytes_text(double(plan_.host_budget_bytes)), seeds));
    }
    {
      PhaseStep step("degenerate_check");
      flag_degenerate_reference(work);
    }
    std::size_t built = work.trials.size();
    if (alt_distribution) {
      yield_to_waiting_timer();
      add_alt_distribution_trial(work, poison);
    }
    if (alt_shape) {
      yield_to_waiting_timer();
      add_alt_shape_trial(work, poison);
    }
    for (; built < work.trials.size(); ++built) place(work.trials[built], true);
    if (post_timing) {
      yield_to_waiting_timer();
      // Same weights as the timed instance (seed trial 0), inputs from a seed never seen.
      const Trial& first = work.trials.front();
      const int seed = trial_seed(job.settings.seeds + 2);
      work.recheck = builder.run_reference(TrialKind::post_timing, seed, first.model, builder.build_inputs(seed), poison);
      work.recheck->model_seed = first.seed;
      place(*work.recheck, false);  // its model is the first trial's, which stays
    }
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "building the reference trials failed",
                  {{"traceback", describe_python_error(e)}}};
  }
}

void ReferenceUnit::plan_memory_use(ReferenceWork& work, int extra_trials) {
  PhaseStep step("memory_plan");
  const Trial& first = work.trials.front();
  DeviceMemory& memory = context_.memory();
  const Job& job = context_.job;
  MemoryFootprint footprint;
  footprint.input_bytes = TrialBuilder::tensor_bytes(first.inputs);
  footprint.weight_bytes = TrialBuilder::weight_bytes(first.model);
  for (const auto& t : first.expected) footprint.output_bytes += static_cast<long long>(t.nbytes());
  footprint.call_peak_bytes = memory.end_call();
  MemoryPlanRequest request;
  request.footprint = footprint;
  request.budget_bytes = memory.planning_budget();
  request.host_budget_bytes = host_budget_bytes(job);
  request.device_is_host = !job.device.is_cuda();
  request.fixed_bytes = TimingSession::flush_bytes(job);
  request.extra_trials = extra_trials;
  request.timing_sets_wanted = context_.timing.input_sets;
  request.timed_variants = 1 + int(job.settings.baselines.size());
  plan_ = plan_memory(request);
  memory.note_plan(footprint, plan_);
  work.trials_on_device = job.device.is_cuda() ? plan_.trials_on_device : -1;
  // The stale-memory sweep gets what the plan leaves free (on the CPU: of the host budget).
  const long long budget = job.device.is_cuda() ? plan_.budget_bytes : plan_.host_budget_bytes;
  const long long planned = job.device.is_cuda() ? plan_.planned_bytes : plan_.host_planned_bytes;
  work.sweep_bytes = budget > 0 ? std::max(1LL, budget - planned) : 0;
  work.memory_plan = memory.usage().plan;
  // Sharing the device: better to say so now and run again alone than to fail half-way.
  if (!plan_.fits && memory.grant_bytes() > 0 && !memory.alone()) throw memory.does_not_fit(plan_);
}

// An extra trial beyond what the plan keeps on the device waits in host memory.
void ReferenceUnit::place(Trial& trial, bool with_model) {
  if (placed_++ < plan_.trials_on_device || !context_.job.device.is_cuda()) return;
  PhaseStep step("keep_on_host");
  context_.builder->keep_on_host(trial, with_model);
}

// Outputs equal on every seed suggest a constant or degenerate problem (METR's filter).
void ReferenceUnit::flag_degenerate_reference(const ReferenceWork& work) {
  const auto& trials = work.trials;
  if (trials.size() < 2) return;
  for (std::size_t i = 1; i < trials.size(); ++i) {
    const auto& a = trials.front().expected;
    const auto& b = trials[i].expected;
    if (a.size() != b.size()) return;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (!exactly_equal(a[k], b[k])) return;
  }
  integrity_.flag("degenerate_reference: the reference outputs are identical on every seed");
}

void ReferenceUnit::add_alt_distribution_trial(ReferenceWork& work, bool poison) {
  CostScope cost(integrity_);
  const TrialBuilder& builder = *context_.builder;
  const int seed = trial_seed(context_.job.settings.seeds);
  py::object model = builder.build_model(context_.problem.attr("Model"), seed);
  Trial trial = builder.run_reference(TrialKind::alt_distribution, seed, model, builder.build_alt_inputs(seed), poison);
  PhaseStep step("finite_check");
  // Outside the problem's domain: the reference itself breaks down; no verdict either way. The
  // seeds' outputs (on the host, a CPU pass over each) are read only when this one is not finite.
  const auto seeds_finite = [&work] {
    return std::all_of(work.trials.begin(), work.trials.end(), [](const Trial& t) { return all_finite(t.expected); });
  };
  if (!all_finite(trial.expected) && seeds_finite()) {
    work.trial_notes.push_back("alt_distribution trial skipped: the reference gives non-finite outputs on it");
    return;
  }
  work.trials.push_back(std::move(trial));
}

void ReferenceUnit::add_alt_shape_trial(ReferenceWork& work, bool poison) {
  CostScope cost(integrity_);
  const TrialBuilder& builder = *context_.builder;
  const Job& job = context_.job;
  const int seed = trial_seed(job.settings.seeds + 1);
  const nlohmann::json previous = builder.set_constants(job.alt_size_overrides);
  Trial trial;
  try {
    py::object model = builder.build_model(context_.problem.attr("Model"), seed);
    trial = builder.run_reference(TrialKind::alt_shape, seed, model, builder.build_inputs(seed), poison);
  } catch (...) {
    builder.set_constants(previous);
    throw;
  }
  builder.set_constants(previous);
  trial.constants = job.alt_size_overrides;
  work.trials.push_back(std::move(trial));
}

// Input sets for timing, built like the correctness inputs under their own seeds, as many as
// the memory plan allows (each variant holds its own clones of every set), with the reference's
// outputs for each, computed here, before the candidate's import: every call timed is checked on them.
void ReferenceUnit::build_timing_sets(ReferenceWork& work) {
  PhaseStep step("timing_sets");
  const Trial& first = work.trials.front();
  work.timing_sets = {first};
  const bool poison = integrity_.enabled("stale_memory");
  try {
    for (std::size_t i = 1; i < std::size_t(plan_.timing_sets); ++i) {
      yield_to_waiting_timer();
      const int seed = 5000 + int(i);
      work.timing_sets.push_back(context_.builder->run_reference(TrialKind::timing, seed, first.model,
                                                                 context_.builder->build_inputs(seed), poison));
      work.timing_sets.back().model_seed = first.seed;
    }
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "building the timing input sets failed",
                  {{"traceback", describe_python_error(e)}}};
  }
  const auto& mutates = first.reference_mutates;
  work.timing_comparison_skipped = std::find(mutates.begin(), mutates.end(), true) != mutates.end();
}

namespace {
// Sets run back to back before K is chosen (add_witness_sets).
constexpr std::size_t kWitnessSizingSets = 4;
}  // namespace

// The timing witness's seeds (exec/timing_witness.hpp): from the kernel's random source, so no
// other process can build their inputs before the controller sends them. How many follows
// (witness_call_count) from the call, the faster of two timed alone, and the rest of a set's
// work (inputs built, outputs copied, hashed and opened where they are:
// integrity/tensor_merkle.hpp) measured as the window runs it, below.
// Memory does not cap them: the candidate opens its calls in groups (worker/witness_groups.hpp)
// and the judge computes one expected output at a time. witness_overhead_s is that rest for as
// many sets as the window will hold, measured as the window runs them: sets after the two, one
// after another with nothing waited for between them (on CUDA one set's hashing overlaps the
// next's launches), less their calls at the fastest call's time. Sets measured step by step
// (each step synchronised, the first one cold) made it ~2x the window's rest on the H200, room a
// forger at honest speed hid in (threat-model.md). On the CPU as this process's CPU time: the
// window is judged there by the work done in it (the host's wait for a CPU is credited,
// exec/tree_schedule.hpp), and a loaded host would stretch a wall-time figure into allowance a
// forger's calls could hide in. On CUDA wall time. This process never holds candidate code: the
// reference's outputs need no poisoning here.
void ReferenceUnit::add_witness_sets(ReferenceWork& work) {
  CostScope cost(integrity_);
  const py::object model = work.trials.front().model;
  const bool cuda = context_.job.device.is_cuda();
  // Spelled as a statement: `cuda ? attr : py::none()` converts the attribute to py::none, a
  // checked cast that throws on CUDA (only there: the CPU path never evaluates that branch).
  py::object synchronize = py::none();
  if (cuda) synchronize = context_.torch.attr("cuda").attr("synchronize");
  std::random_device random;
  const auto draw_seed = [&random] { return 1'000'000 + int(random() % 1'000'000'000u); };
  const clockid_t clock = cuda ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
  const auto seconds_now = [clock, &synchronize] {
    if (!synchronize.is_none()) synchronize();
    timespec t{};
    clock_gettime(clock, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  };
  // One set as the window runs it (seeds drawn here are not the witness's: these only measure);
  // with `call_s`, the call timed alone into it (synchronised on either side).
  const auto run_set = [&](double* call_s) {
    const int seed = draw_seed();
    const py::tuple args(context_.builder->build_inputs(seed));
    const double called = call_s ? seconds_now() : 0;
    const std::vector<at::Tensor> outputs = flatten_outputs(model(*args)).tensors;
    if (call_s) *call_s = seconds_now() - called;
    PhaseStep phase("witness_hash");
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      CommittedOutput committed = commit_output_in_place(outputs[o]);  // copied, hashed, opened as the candidate's
      open_output(committed, opening_positions(std::uint64_t(seed), 0, o, committed.tree.leaves(),
                                               std::size_t(kCheckedElementsPerCall)));
    }
  };
  std::size_t count = 2;
  double rest_s = 0;
  try {
    double fastest_call_s = 0;
    for (int i = 0; i < 2; ++i) {
      double call_s = 0;
      run_set(&call_s);
      fastest_call_s = i == 0 ? call_s : std::min(fastest_call_s, call_s);
    }
    // The rest as the window runs it: sets back to back, less their calls at the fastest call's
    // time. K is sized on it, as the allowance is. A rest measured step by step (every step
    // synchronised) is 2-5x larger on the H200: gated on it, a 1.3 ms attention got 16 calls,
    // whose excess a forger hides in the margin. For a larger K, the rest is measured again
    // over as many sets as the window will run.
    double pipelined_s = 0;
    std::size_t pipelined = 0;
    const auto run_pipelined = [&](std::size_t sets) {
      const double started = seconds_now();
      for (std::size_t i = 0; i < sets; ++i) run_set(nullptr);
      pipelined_s += seconds_now() - started;
      pipelined += sets;
      rest_s = std::max(0.0, pipelined_s / double(pipelined) - fastest_call_s);
    };
    run_pipelined(kWitnessSizingSets);
    WitnessRule rule = WitnessRule::for_device(cuda);
    if (const char* run = std::getenv(kWitnessRunVariable); run && std::string(run) == "2")
      rule = rule.for_second_window();
    count = witness_call_count(fastest_call_s, rest_s, rule);
    if (count > pipelined + 2) run_pipelined(count - 2 - pipelined);
  } catch (const py::error_already_set& e) {
    throw Verdict{Status::problem_error, "building the timing witness's input sets failed",
                  {{"traceback", describe_python_error(e)}}};
  } catch (const std::invalid_argument& e) {
    throw Verdict{Status::problem_error, e.what()};
  }
  work.witness_count = count;
  for (std::size_t i = 0; i < count; ++i) work.witness_seeds.push_back(draw_seed());
  work.witness_overhead_s = double(count) * rest_s;
}

// Baselines are compiled and measured before the candidate exists in this process: failing
// candidates still get baseline times, and the interleaved run can be checked against these.
// Kept baselines (`short_baselines`): the controller holds their pre-import figures, measured
// in a process that never held a candidate, and checks the drift sample against them.
void ReferenceUnit::measure_baselines(ReferenceWork& work, bool short_baselines) {
  {
    PhaseStep step("baselines_build");
    handles_.baselines = build_baselines(context_, work.trials.front(), baselines_built(context_.job, short_baselines),
                                         false, work.baseline_notes);
  }
  for (const auto& [name, callable] : handles_.baselines) work.baselines.push_back(name);
  build_timing_sets(work);
  prepare_timing(context_, work, integrity_, handles_);
  if (!short_baselines) measure_pre_import(context_, handles_.baselines, *handles_.session, work, phase_);
}

// The eager baseline timed here too, briefly, when the candidate worker will time the baselines:
// that worker may run native code that forges samples, this one never loads candidate code
// (integrity/baseline_cross_check.hpp; the judge compares). Inductor is left out: compiling it
// twice per job is what deferring the baselines saves.
void ReferenceUnit::measure_trusted_baselines(ReferenceWork& work) {
  if (context_.timing.mode == TimingMode::kernelbench) return;
  CostScope cost(integrity_);
  // Eager and Inductor (its own compile of the reference, here, before any candidate code: its
  // artefacts land in the job's Inductor cache, where the candidate worker's compile finds them).
  nlohmann::json notes;
  const std::vector<NamedCallable> baselines =
      build_baselines(context_, work.trials.front(), work.baselines, true, notes);
  if (baselines.empty()) return;
  ReferenceHandles handles;
  prepare_timing(context_, work, integrity_, handles);
  ResolvedTiming quick = context_.timing;
  quick.max_time_s = std::min(1.0, context_.timing.max_time_s / 4);
  quick.target_ci = std::max(context_.timing.target_ci, 0.01);
  try {
    PhaseStep step("trusted_baselines_timing");
    const ProtocolRun run = handles.session->measure(baselines, quick);
    for (const auto& [name, record] : run.variants)
      if (!record.samples_ms.empty()) work.trusted_baseline_ms[name] = record.samples_ms;
  } catch (const VariantError& e) {
    phase_ = "baseline " + e.variant;
    throw Verdict{Status::problem_error, fmt::format("baseline {} raised {} while being timed", e.variant, e.python_type),
                  {{"traceback", e.traceback}}};
  }
}

void measure_pre_import(const ProblemContext& context, const std::vector<NamedCallable>& baselines,
                        TimingSession& session, ReferenceWork& work, std::string& phase) {
  if (baselines.empty() || context.timing.mode == TimingMode::kernelbench) return;
  ResolvedTiming quick = context.timing;
  quick.max_time_s = std::min(2.0, context.timing.max_time_s / 4);
  quick.target_ci = std::max(context.timing.target_ci, 0.01);
  try {
    PhaseStep step("pre_import_timing");
    const ProtocolRun run = session.measure(baselines, quick);
    work.pre_import.job = context.job;
    session.store(run, quick, work.pre_import);
    for (const auto& [name, record] : run.variants)
      if (!record.samples_ms.empty()) work.pre_import_median_ms[name] = summarize(record.samples_ms).median;
  } catch (const VariantError& e) {
    phase = "baseline " + e.variant;
    throw Verdict{Status::problem_error, fmt::format("baseline {} raised {} while being timed", e.variant, e.python_type),
                  {{"traceback", e.traceback}}};
  }
}

std::vector<NamedCallable> build_baselines(const ProblemContext& context, const Trial& first,
                                           const std::vector<std::string>& names, bool blinded,
                                           nlohmann::json& notes) {
  auto wants = [&](const char* b) { return std::find(names.begin(), names.end(), b) != names.end(); };
  std::vector<NamedCallable> baselines;
  if (wants("eager")) baselines.push_back({"eager", first.model});
  // Inductor's compile is long: a waiting timer first (its Triton builds, and its waits for its
  // compile subprocesses, drop the lock too: gpu_lock_hooks.hpp).
  if (wants("inductor")) {
    yield_to_waiting_timer();
    install_inductor_wait_hook();
    PhaseStep step("inductor_compile");
    if (auto compiled = compile_inductor(context, first, blinded, notes)) baselines.push_back({"inductor", *compiled});
  }
  return baselines;
}

std::string fresh_values_excluded(const ProblemContext& context) {
  // Graph mode takes no flush before a timed replay (docs/timing.md), so the copy's dirty lines
  // would still be in L2 when the replay starts and their write-back would be timed.
  if (context.timing.mode == TimingMode::graph && context.job.device.is_cuda())
    return "graph mode: a captured graph replays on its buffers' values, and no flush precedes a timed replay "
           "(a copy before it would leave dirty L2 lines inside the timed replay)";
  return "";
}

void decide_fresh_calls(const ProblemContext& context, ReferenceWork& work) {
  PhaseStep step("fresh_calls_probe");
  work.fresh_calls = false;
  work.fresh_calls_why = fresh_values_excluded(context);
  if (!work.fresh_calls_why.empty() || work.timing_sets.empty()) return;
  if (work.timing_comparison_skipped) {
    work.fresh_calls_why = "the reference writes into its inputs: its calls are not judged";
    return;
  }
  const FreshInputs probe(*context.builder, py::none(), work.timing_sets.front().inputs);
  work.fresh_calls_why = probe.unusable();
  if (work.fresh_calls_why.empty() && !probe.function_of_seed())
    work.fresh_calls_why = "get_inputs() is not a function of its seed: the judge could not rebuild a call's values";
  work.fresh_calls = work.fresh_calls_why.empty();
}

namespace {

// Fresh values for every timed call, or why not (integrity_notes.timed_call_check.fresh_inputs):
// the calls then cycle the timing sets' values, as before fresh values existed.
std::unique_ptr<FreshInputs> fresh_inputs(const ProblemContext& context, const ReferenceWork& work, CallAudit& audit) {
  std::string why = fresh_values_excluded(context);
  std::unique_ptr<FreshInputs> fresh;
  if (why.empty()) {
    const Trial& first = work.timing_sets.front();
    fresh = std::make_unique<FreshInputs>(*context.builder, work.trials.front().model, first.inputs);
    why = fresh->unusable();
  }
  if (!why.empty()) {
    audit.note_fresh({{"used", false}, {"why", why}});
    return nullptr;
  }
  audit.note_fresh({{"used", true}, {"reference_inputs", fresh->pristine_source()}});
  return fresh;
}

}  // namespace

void prepare_timing(const ProblemContext& context, const ReferenceWork& work, const IntegrityMonitor& levels,
                    ReferenceHandles& handles) {
  PhaseStep step("prepare_timing");
  std::vector<py::list> sets;
  std::vector<std::vector<at::Tensor>> expected;
  for (const auto& set : work.timing_sets) {
    sets.push_back(set.inputs);
    expected.push_back(set.expected);
  }
  CallAuditSettings audit;
  audit.compare = audit.rotate = levels.enabled("timed_call_check");
  audit.poison = levels.enabled("stale_memory") || audit.compare;
  audit.tolerance = call_tolerances(work.trials, context.tolerance, levels.enabled("trivial_output"));
  // Blinded: the expected values are elsewhere; the candidate's sampled values are committed.
  audit.commit = work.blinded && audit.compare;
  const bool check_calls = audit.compare;
  if (work.blinded) audit.compare = false;
  if (audit.commit || audit.compare || audit.poison) {
    handles.audit = std::make_unique<CallAudit>(std::move(expected), work.trials.front().structure, audit);
    if (audit.compare) handles.fresh = fresh_inputs(context, work, *handles.audit);
    // Blinded: values from the controller's seeds (exec/call_reveal.hpp), built here, never a
    // reference run here; the judge rebuilds them and runs the reference once this process is gone.
    if (audit.commit && work.fresh_calls) {
      handles.fresh = std::make_unique<FreshInputs>(*context.builder, py::none(), work.timing_sets.front().inputs);
      if (!handles.fresh->unusable().empty() || !handles.fresh->function_of_seed())
        throw Verdict{Status::problem_error, "fresh timing inputs: the reference worker could build them from a seed, "
                                             "this worker cannot: " + handles.fresh->unusable()};
      handles.audit->note_fresh({{"used", true}, {"reference_inputs", "rebuilt from the controller's seeds by the judge"}});
    } else if (audit.commit) {
      handles.audit->note_fresh({{"used", false}, {"why", "blinded: " + work.fresh_calls_why}});
    }
    // Fresh values refill a buffer before every call: what the reference wrote into it is gone.
    if (check_calls && work.timing_comparison_skipped && !handles.fresh)
      handles.audit->skip_comparison("the reference writes into its inputs: calls on one buffer see other values");
  }
  handles.session =
      std::make_unique<TimingSession>(context.job, std::move(sets), handles.audit.get(), handles.fresh.get());
}

void add_input_digests(ReferenceWork& work) {
  auto digest = [](Trial& trial) {
    trial.input_digests.clear();
    for (auto item : trial.inputs) trial.input_digests.push_back(input_digest(item));
  };
  for (auto& t : work.trials) digest(t);
  for (auto& t : work.timing_sets) digest(t);
  if (work.recheck) digest(*work.recheck);
}

}  // namespace kbench
