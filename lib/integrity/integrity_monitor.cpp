#include "integrity/integrity_monitor.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "integrity/candidate_audit.hpp"
#include "integrity/tensor_guard.hpp"
#include "measure/offstream_rule.hpp"
#include "measure/sample_stats.hpp"
#include "integrity/elf_symbols.hpp"
#include "worker/verdict.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

// How many same-sized blocks are allocated and poisoned per reference output before the import:
// enough to drain the recently freed blocks of that size from the allocator's free lists.
constexpr int kPoisonSweep = 8;

std::string first_names(const std::vector<std::string>& names, std::size_t n = 8) {
  std::vector<std::string> head(names.begin(), names.begin() + std::min(n, names.size()));
  std::string text = fmt::format("{}", fmt::join(head, ", "));
  if (names.size() > n) text += fmt::format(" (+{} more)", names.size() - n);
  return text;
}

}  // namespace

IntegrityMonitor::IntegrityMonitor(const Job& job) : job_(job) {}

bool IntegrityMonitor::enabled_for(const Job& job, const char* check) {
  const auto& skipped = job.settings.skip_checks;
  return check_enabled(job.settings.checks, check) &&
         std::find(skipped.begin(), skipped.end(), check) == skipped.end();
}

std::string IntegrityMonitor::trial_name(const Trial& trial) const {
  return fmt::format("{} trial, seed {}", to_string(trial.kind), trial.seed);
}

void IntegrityMonitor::before_import(const std::vector<Trial>& trials, long long sweep_bytes) {
  CostScope cost(*this);
  if (enabled("stale_memory")) {
    // The reference's own outputs were poisoned when the trials were built; the baselines'
    // outputs were freed unpoisoned. Allocating blocks of the same sizes takes those back from
    // the allocator's free lists (CPU malloc, CUDA caching allocator) and overwrites them.
    // The expected outputs themselves are on the host; the sweep is on the job's device.
    const at::Device device(to_string(job_.device));
    // Bounded by the memory plan: full-size problems (outputs of GBs) would otherwise ask
    // for kPoisonSweep x trials x outputs at once; the largest freed blocks come back first.
    std::vector<at::Tensor> sweep;
    long long swept = 0;
    for (const auto& trial : trials)
      for (const auto& expected : trial.expected)
        for (int i = 0; i < kPoisonSweep; ++i) {
          const auto bytes = static_cast<long long>(expected.nbytes());
          if (sweep_bytes > 0 && swept + bytes > sweep_bytes) break;
          swept += bytes;
          sweep.push_back(at::empty(expected.sizes(), expected.options().device(device)));
          poison(sweep.back());
        }
    sweep.clear();
    py::module_::import("gc").attr("collect")();
  }
  if (enabled("forbidden_api") || enabled("no_custom_kernel")) {
    try {
      static_ = analyze_candidate_source(job_.candidate_file);
    } catch (const std::exception& e) {
      // An unparsable file fails its import next, with a clearer compile_error.
      notes_["static_analysis_error"] = e.what();
    }
  }
  if (enabled("monkeypatch") || enabled("background_thread") || enabled("child_process"))
    snapshot_ = std::make_unique<InterpreterSnapshot>();
  // Judged free of native code, so not isolated: watch that it stays so (candidate_audit.hpp).
  if (enabled("native_isolation")) {
    try {
      const StaticAnalysis analysis = analyze_candidate_source(job_.candidate_file);  // parsed once, kept
      if (analysis.syntax_error.empty() && native_code_reason(analysis).empty()) candidate_audit::install("kbench_candidate");
    } catch (const std::exception&) {
      // unreadable: the import fails next
    }
  }
  if (enabled("reference_called") || enabled("custom_kernel_not_launched") || enabled("custom_kernel_share"))
    natives_ = NativeBaseline::capture();
}

std::optional<Verdict> IntegrityMonitor::static_rejection(const Job& job, const StaticAnalysis& analysis) {
  if (enabled_for(job, "forbidden_api") && !analysis.violations.empty()) {
    const auto& v = analysis.violations.front();
    nlohmann::json all = nlohmann::json::array();
    for (const auto& f : analysis.violations)
      all.push_back({{"check", f.check}, {"evidence", f.evidence}, {"line", f.line}});
    return rejection("forbidden_api", fmt::format("line {}: {}", v.line, v.evidence), {{"violations", all}});
  }
  if (job.settings.require_custom_kernel && enabled_for(job, "no_custom_kernel") && analysis.reachable_kernels.empty())
    return rejection("no_custom_kernel",
                     analysis.defined_kernels.empty()
                         ? "the candidate defines no @triton.jit or load_inline kernel"
                         : fmt::format("no kernel is reachable from ModelNew.forward (defined: {})",
                                       first_names(analysis.defined_kernels)));
  return std::nullopt;
}

void IntegrityMonitor::after_import(const std::string& problem_code_file) {
  CostScope cost(*this);
  // Decided before torch was imported already (worker/source_verdict.hpp); asked again from the
  // same parsed analysis, so a worker that skipped that step cannot skip the rule.
  if (auto rejected = static_rejection(job_, static_)) throw *rejected;
  check_interpreter("after the candidate's import");
  if (enabled("reference_called") || enabled("custom_kernel_not_launched"))
    tracer_ = std::make_unique<CallTracer>(problem_code_file, job_.candidate_file.string(), natives_);
}

FlatOutputs IntegrityMonitor::checked_call(const Trial& trial, const py::tuple& args,
                                           const std::function<py::object()>& call) {
  TraceRecord record;
  py::object output = tracer_ ? tracer_->trace(call, record) : call();
  CostScope cost(*this);
  if (record.hook_removed)
    throw rejection("profile_hook_removed",
                    fmt::format("ModelNew.forward replaced or removed the call tracer ({})", trial_name(trial)));
  if (!record.reference_code.empty())
    throw rejection("reference_called",
                    fmt::format("ModelNew.forward ran the problem file's {} ({})", record.reference_code,
                                trial_name(trial)));
  if (tracer_ && !traced_once_) {
    first_call_ = record;
    traced_once_ = true;
  }
  if (enabled("input_mutation")) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!is_tensor(args[i]) || trial.reference_mutates.at(i)) continue;
      if (!exactly_equal(to_tensor(args[i]), to_tensor(trial.inputs[i])))
        throw rejection("input_mutation",
                        fmt::format("ModelNew.forward modified input {} ({})", i, trial_name(trial)),
                        {{"input_index", i}});
    }
  }
  FlatOutputs flat = flatten_outputs(output);  // std::invalid_argument: the caller's mismatch
  if (enabled("tensor_subclass")) {
    for (std::size_t i = 0; i < flat.tensors.size(); ++i) {
      const auto& type = flat.types[i];
      const bool reference_same = i < trial.output_types.size() && trial.output_types[i] == type;
      if (type != "torch.Tensor" && !reference_same)
        throw rejection("tensor_subclass",
                        fmt::format("output {} is a {}, not a torch.Tensor ({})", i, type, trial_name(trial)));
      const auto& t = flat.tensors[i];
      if (t.numel() > 0 && (!t.has_storage() || t.storage().data() == nullptr))
        throw rejection("tensor_subclass",
                        fmt::format("output {} has no storage: a lazy or deferred tensor ({})", i,
                                    trial_name(trial)));
    }
  }
  return flat;
}

void IntegrityMonitor::after_checks() {
  CostScope cost(*this);
  if (job_.settings.require_custom_kernel && enabled("custom_kernel_not_launched") && traced_once_ &&
      first_call_.total_launches() == 0)
    throw rejection("custom_kernel_not_launched",
                    static_.defined_kernels.empty()
                        ? "no Triton or extension kernel launched during ModelNew.forward"
                        : fmt::format("no custom kernel launched during ModelNew.forward (defined: {})",
                                      first_names(static_.defined_kernels)));
  check_interpreter("after the correctness checks");
}

void IntegrityMonitor::after_timing(const std::vector<double>& candidate_ms, int offstream_samples,
                                    const std::vector<double>& eager_ms) {
  CostScope cost(*this);
  check_interpreter("after timing");
  const OffstreamVerdict offstream = judge_offstream(offstream_samples, candidate_ms.size());
  if (enabled("side_stream") && offstream != OffstreamVerdict::none) {
    const std::string evidence =
        fmt::format("{} of {} timed samples left work running after the end event (host noise explains {})",
                    offstream_samples, candidate_ms.size(), offstream_noise_allowance(candidate_ms.size()));
    // A majority cannot be the odd late interrupt: rejected. Above the noise floor: flagged.
    if (offstream == OffstreamVerdict::reject) throw rejection("side_stream", evidence);
    flags_.push_back("offstream_samples: " + evidence);
  }
  if (!candidate_ms.empty() && !eager_ms.empty()) {
    const double speedup = summarize(eager_ms).median / summarize(candidate_ms).median;
    if (speedup > job_.settings.flag_speedup_above)
      flags_.push_back(fmt::format("suspicious_speedup: {:.1f}x faster than eager (flagged above {:g}x)",
                                   speedup, job_.settings.flag_speedup_above));
  }
}

void IntegrityMonitor::check_interpreter(const char* when) {
  if (enabled("native_isolation"))
    if (const auto native = candidate_audit::native_use())
      throw rejection("native_isolation",
                      fmt::format("the candidate, judged free of native code and run beside its expected values, "
                                  "reached native code {}: {}",
                                  when, *native));
  if (!snapshot_) return;
  if (enabled("background_thread")) {
    const auto threads = snapshot_->new_threads();
    if (!threads.empty())
      throw rejection("background_thread",
                      fmt::format("Python thread(s) started by the candidate still running {}: {}", when,
                                  first_names(threads)));
    // Native threads cannot be attributed (torch, BLAS, CUDA and the profiler grow their pools;
    // on the H200, 22 of 24 honest candidates gained one during timing): a note with their
    // names, the first time any is seen, not a flag.
    const auto native = snapshot_->new_native_threads();
    if (!native.empty() && !notes_.contains("native_thread_growth"))
      notes_["native_thread_growth"] = {{"count", native.size()}, {"threads", native}, {"seen", when}};
  }
  if (enabled("child_process")) {
    // The harness's own children (extension builds, Triton's compilers) are waited for and gone
    // by now; Inductor's compile workers start before the snapshot. Anything else alive below
    // this process was started by the candidate: DataLoader workers fork it, and a process runs
    // beside the baselines' timed calls (CPU time, GPU contexts) where no thread check looks.
    const auto processes = snapshot_->new_processes();
    if (!processes.empty())
      throw rejection("child_process", fmt::format("process(es) started by the candidate still running {}: {}",
                                                   when, first_names(processes)));
  }
  if (enabled("monkeypatch")) {
    const auto patched = snapshot_->patched();
    if (!patched.empty())
      throw rejection("monkeypatch", fmt::format("changed {}: {}", when, first_names(patched)),
                      {{"patched", patched}});
    const auto state = snapshot_->state_changes();
    if (!state.empty())
      throw rejection("monkeypatch", fmt::format("torch's global state changed {}: {}", when, first_names(state)),
                      {{"state", state}});
  }
}

OwnKernels IntegrityMonitor::own_kernels() {
  OwnKernels own;
  own.triton.insert(static_.defined_kernels.begin(), static_.defined_kernels.end());
  for (const auto& [name, count] : first_call_.launches)
    if (name.rfind("extension:", 0) != 0 && name.rfind("op:", 0) != 0) own.triton.insert(name);
  nlohmann::json objects = nlohmann::json::object();
  for (const auto& object : natives_.candidate_objects()) {
    try {
      const auto kernels = cuda_kernels_in_symbols(elf_symbol_names(object));
      own.cuda.insert(kernels.begin(), kernels.end());
      objects[object] = kernels.size();
    } catch (const std::exception& e) {
      objects[object] = e.what();
    }
  }
  // Which extensions were read and how many kernels each holds: the evidence behind the share.
  if (!objects.empty()) notes_["candidate_extensions"] = objects;
  return own;
}

void IntegrityMonitor::report(nlohmann::json& diagnostics) const {
  diagnostics["checks"] = to_string(job_.settings.checks);
  diagnostics["integrity_cost_s"] = cost_s_;
  for (const auto& f : flags_) diagnostics["flags"].push_back(f);
  nlohmann::json notes = notes_;
  if (traced_once_) notes["launches_first_call"] = first_call_.launches;
  if (!notes.empty()) diagnostics["integrity_notes"] = notes;
}

}  // namespace kbench
