#pragma once
// The runtime integrity checks around one candidate (docs/integrity.md): what is prepared before
// its import, what is watched during its checked calls, and what is compared after its checks
// and its timing. A failed check throws a Verdict with status `rejected`; uncertain findings
// become flags. Each check runs only at its level (integrity/check_level.hpp).
#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/job.hpp"
#include "integrity/call_tracer.hpp"
#include "integrity/interpreter_snapshot.hpp"
#include "integrity/kernel_attribution.hpp"
#include "integrity/native_baseline.hpp"
#include "integrity/static_analysis.hpp"
#include "worker/tensor_bridge.hpp"
#include "worker/trial.hpp"
#include "worker/verdict.hpp"

namespace kbench {

class IntegrityMonitor {
 public:
  explicit IntegrityMonitor(const Job& job);

  [[nodiscard]] bool enabled(const char* check) const { return enabled_for(job_, check); }
  // The same without a monitor (which holds Python objects): for processes without Python.
  static bool enabled_for(const Job& job, const char* check);
  // The rejections the static analysis decides alone, in this order: forbidden_api, then
  // no_custom_kernel (require_custom_kernel); nullopt when neither applies. Needs no torch.
  static std::optional<Verdict> static_rejection(const Job& job, const StaticAnalysis& analysis);

  // Reference outputs exist; the candidate does not yet. Poisons recycled allocator blocks of
  // the outputs' sizes (at most `sweep_bytes` at once; 0: no bound), runs the static analysis
  // and snapshots the interpreter.
  void before_import(const std::vector<Trial>& trials, long long sweep_bytes = 0);
  // The candidate module is imported: installs the call tracer, compares the snapshot.
  void after_import(const std::string& problem_code_file);

  // Calls `call` as a checked candidate call of `trial` (traced at strict level) and checks
  // what the call did: reference code run, tracer removed, inputs written, output types.
  FlatOutputs checked_call(const Trial& trial, const pybind11::tuple& args,
                           const std::function<pybind11::object()>& call);
  // After the correctness trials: kernel launches (require_custom_kernel), threads, patches.
  void after_checks();
  // After timing: threads and patches again, off-stream samples, the speedup flag.
  void after_timing(const std::vector<double>& candidate_ms, int offstream_samples,
                    const std::vector<double>& eager_ms);

  // The candidate's own kernels for the kernel share: the CUDA kernels compiled into the
  // extensions it loaded, its Triton JIT functions (defined, or seen launching).
  [[nodiscard]] OwnKernels own_kernels();
  [[nodiscard]] const TraceRecord& first_call() const { return first_call_; }

  // Adds `seconds` of check work to the cost (for work done by the caller on the checks' behalf).
  void add_cost(double seconds) { cost_s_ += seconds; }
  // diagnostics: level, cost, flags and notes.
  void report(nlohmann::json& diagnostics) const;
  void flag(const std::string& text) { flags_.push_back(text); }
  [[nodiscard]] const std::vector<std::string>& flags() const { return flags_; }
  [[nodiscard]] double cost_s() const { return cost_s_; }
  void note(const std::string& key, nlohmann::json value) { notes_[key] = std::move(value); }

 private:
  void check_interpreter(const char* when);
  [[nodiscard]] std::string trial_name(const Trial& trial) const;

  const Job& job_;
  std::unique_ptr<InterpreterSnapshot> snapshot_;
  std::unique_ptr<CallTracer> tracer_;
  StaticAnalysis static_;
  NativeBaseline natives_;
  TraceRecord first_call_;
  bool traced_once_ = false;
  double cost_s_ = 0;
  std::vector<std::string> flags_;
  nlohmann::json notes_ = nlohmann::json::object();
};

// Adds the wall time of its scope to a monitor's cost.
class CostScope {
 public:
  explicit CostScope(IntegrityMonitor& monitor) : monitor_(monitor), start_(std::chrono::steady_clock::now()) {}
  ~CostScope() {
    monitor_.add_cost(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }
  CostScope(const CostScope&) = delete;
  CostScope& operator=(const CostScope&) = delete;

 private:
  IntegrityMonitor& monitor_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kbench
