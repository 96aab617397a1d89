#pragma once
// Inside a worker: times named Python callables on pre-built input sets with the job's protocol
// (measure/interleaved_protocol.hpp), owning the timer, the L2-flush buffer and the clock
// monitor. The caller decides what to time and when. With a CallAudit, every call's output is
// kept to the end of its sample and audited there, outside the timed interval, and before each
// sample its input buffers get fresh values (worker/fresh_inputs.hpp; where those cannot be
// built, a random one of the timing sets' values instead: integrity/call_audit.hpp).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "model/job.hpp"
#include "model/job_result.hpp"
#include "measure/gpu_monitor.hpp"
#include "measure/interleaved_protocol.hpp"
#include "measure/timer.hpp"
#include "integrity/call_audit.hpp"
#include "worker/fresh_inputs.hpp"

namespace kbench {

using NamedCallable = std::pair<std::string, pybind11::object>;

// A Python exception raised by one variant while it was being timed, so the caller can tell a
// failing candidate from a failing baseline.
struct VariantError {
  std::string variant;
  std::string python_type;
  std::string traceback;
};

class TimingSession {
 public:
  // `input_sets`: pristine inputs, one list per set; every variant gets its own clones, one
  // buffer per set. `audit` and `fresh` (either may be null; `fresh` only with a comparing
  // `audit`) must outlive the session.
  TimingSession(const Job& job, std::vector<pybind11::list> input_sets, CallAudit* audit = nullptr,
                FreshInputs* fresh = nullptr);

  // Runs the protocol over `variants` (graph mode captures each where it can); a variant named
  // in `max_rounds` is sampled in that many rounds only (ProtocolVariant::max_rounds).
  ProtocolRun measure(const std::vector<NamedCallable>& variants, const ResolvedTiming& timing,
                      const std::map<std::string, int>& max_rounds = {});

  // Copies a run's samples into result.timings and describes the protocol in result.protocol.
  void store(const ProtocolRun& run, const ResolvedTiming& timing, JobResult& result) const;

  [[nodiscard]] const std::string& timer_name() const { return timer_name_; }

  // The L2 flush buffer's size for `job` (0 when nothing is flushed): the memory plan counts it.
  static long long flush_bytes(const Job& job);

 private:
  ProtocolVariant make_variant(const pybind11::object& callable, const ResolvedTiming& timing,
                               const std::string& name);
  // The audit's hooks: fresh values before every sample and the two-step check after it, or
  // (no fresh values) value sets rotated and every call audited on its set's expected outputs.
  template <class State>
  void add_fresh_hooks(ProtocolVariant& variant, const std::shared_ptr<State>& state, const std::string& name);
  // Blinded: fresh values from the controller's seeds, every call committed (no reference here).
  template <class State>
  void add_committed_fresh_hooks(ProtocolVariant& variant, const std::shared_ptr<State>& state,
                                 const std::string& name);

  const Job& job_;
  std::vector<pybind11::list> input_sets_;
  CallAudit* audit_ = nullptr;
  FreshInputs* fresh_ = nullptr;
  pybind11::object synchronize_;  // torch.cuda.synchronize, taken before any candidate import
  bool sets_interchangeable_ = false;  // same tensor shapes and other args: values may rotate
  std::unique_ptr<Timer> timer_;
  std::string timer_name_;
  bool cuda_ = false;
  at::Tensor flush_buffer_;
  long long flush_bytes_ = 0;
  std::unique_ptr<GpuMonitor> monitor_;
  std::vector<ClockReading> readings_;
  double empty_overhead_ms_ = 0;
  // Clones and graphs the calls of the measurement running now refer to; freed when it ends, so
  // the baselines' pre-import run leaves nothing behind for the main run (docs/memory.md).
  std::vector<pybind11::object> keep_alive_;
  nlohmann::json notes_ = nlohmann::json::object();
};

}  // namespace kbench
