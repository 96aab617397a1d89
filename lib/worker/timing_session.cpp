#include "worker/timing_session.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <pybind11/eval.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "exec/call_reveal.hpp"
#include "measure/cuda_driver.hpp"
#include "worker/gpu_lock.hpp"
#include "worker/python_runtime.hpp"
#include "worker/tensor_bridge.hpp"

namespace py = pybind11;

namespace kbench {
namespace {

constexpr long long kKernelBenchFlushBytes = 256LL << 20;


py::tuple clone_inputs(const py::list& inputs) {
  py::tuple copies(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    copies[i] = is_tensor(inputs[i]) ? inputs[i].attr("clone")() : inputs[i];
  return copies;
}

// Captures `fn(*args)` into a CUDA graph (torch.cuda.graph, after a side-stream warmup as torch
// requires); returns (graph, its static output), or None with the reason in `error`, when the
// callable cannot be captured.
py::object capture_graph(const py::object& fn, const py::tuple& args, std::string& error) {
  py::dict scope;
  scope["fn"] = fn;
  scope["args"] = args;
  py::exec(R"(
import torch
graph = None
try:
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn(*args)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_output = fn(*args)
    torch.cuda.synchronize()
    graph = (g, static_output)
except Exception as error:
    graph_error = repr(error)[:300]
)", scope);
  if (scope.contains("graph_error")) error = py::str(scope["graph_error"]).cast<std::string>();
  return scope["graph"];
}

// Every set holds tensors of the same shapes and dtypes and equal other arguments, so one set's
// values can be copied into another set's buffers.
bool interchangeable(const std::vector<py::list>& sets) {
  for (const auto& set : sets)
    if (!layout_mismatch(sets.front(), set).empty()) return false;
  return true;
}

// One call since the last sample: the values its buffer held, its output.
struct PendingCall {
  int values = 0;             // the value set held (fresh: the buffer)
  py::object output;
  FreshInputs::Draw draw;     // fresh values: their seed and pristine host copy
  int fresh_reveal = -1;      // blinded: the reveal the seed came from
};

// What one variant's calls use and leave behind during one measurement.
struct VariantState {
  std::vector<py::tuple> buffers;   // one clone per input set, reused by every call on that set
  std::vector<int> holds;           // which set's values each buffer holds now
  std::vector<py::object> graphs;   // graph mode: (graph, static output) per set
  std::vector<PendingCall> pending;  // since the last sample
  std::vector<at::Tensor> keep;     // never poisoned: the buffers, the model's weights
  long long calls = 0;
  // Fresh values: each buffer's draw, whether a call has seen it, where this sample's calls go.
  std::vector<FreshInputs::Draw> draws;
  std::vector<int> drawn_under;  // blinded: the reveal each buffer's seed came from
  std::vector<bool> seen;
  std::size_t next = 0;
};

}  // namespace

TimingSession::TimingSession(const Job& job, std::vector<py::list> input_sets, CallAudit* audit,
                             FreshInputs* fresh)
    : job_(job), input_sets_(std::move(input_sets)), audit_(audit), fresh_(audit ? fresh : nullptr) {
  sets_interchangeable_ = interchangeable(input_sets_);
  cuda_ = job.device.is_cuda();
  if (cuda_) synchronize_ = py::module_::import("torch").attr("cuda").attr("synchronize");
  if (!cuda_) {
    timer_ = make_host_timer();
  } else {
    const int index = job.device.index.value_or(0);
    timer_ = make_cuda_event_timer(index);
    flush_bytes_ = flush_bytes(job);
    if (flush_bytes_ > 0)
      flush_buffer_ = at::zeros({flush_bytes_}, at::TensorOptions().dtype(at::kByte).device(to_string(job.device)));
    monitor_ = std::make_unique<GpuMonitor>(cuda::pci_bus_id(index));
    if (!monitor_->available()) notes_["clocks"] = monitor_->unavailable_reason();
  }
  timer_name_ = timer_->name();
  // The cost of an empty timed region: what no measurement can go below.
  std::vector<double> empty;
  for (int i = 0; i < 21; ++i) empty.push_back(timer_->time([] {}, cuda_).ms);
  std::nth_element(empty.begin(), empty.begin() + 10, empty.end());
  empty_overhead_ms_ = empty[10];
}

long long TimingSession::flush_bytes(const Job& job) {
  if (!job.device.is_cuda()) return 0;
  const ResolvedTiming& t = job.timing;
  if (t.mode == TimingMode::kernelbench) return kKernelBenchFlushBytes;
  if (t.mode == TimingMode::hot) return 0;
  // At least twice the L2, and never less than the 256 MiB others use.
  return std::max(2 * cuda::l2_cache_bytes(job.device.index.value_or(0)), kKernelBenchFlushBytes);
}

ProtocolVariant TimingSession::make_variant(const py::object& callable, const ResolvedTiming& timing,
                                            const std::string& name) {
  auto state = std::make_shared<VariantState>();
  for (std::size_t i = 0; i < input_sets_.size(); ++i) {
    state->buffers.push_back(clone_inputs(input_sets_[i]));
    state->holds.push_back(int(i));
    for (auto item : state->buffers.back())
      if (is_tensor(item)) state->keep.push_back(to_tensor(item));
  }
  for (const char* what : {"parameters", "buffers"})
    if (py::hasattr(callable, what))
      for (auto t : callable.attr(what)()) state->keep.push_back(to_tensor(t));
  for (const auto& s : state->buffers) keep_alive_.push_back(s);
  if (timing.mode == TimingMode::graph && cuda_) {
    for (const auto& args : state->buffers) {
      std::string error;
      py::object graph = capture_graph(callable, args, error);
      if (graph.is_none()) {
        notes_["graph_capture_failed"][name] = error;
        state->graphs.clear();
        break;
      }
      state->graphs.push_back(graph);
    }
    for (const auto& g : state->graphs) keep_alive_.push_back(g);
  }
  ProtocolVariant variant{name, {}};
  if (!state->graphs.empty()) {
    variant.call = [state](int set) {
      const auto k = std::size_t(set) % state->graphs.size();
      state->graphs[k][py::int_(0)].attr("replay")();
      state->pending.push_back({state->holds[k], state->graphs[k][py::int_(1)], {}});
    };
  } else {
    const bool fresh = fresh_ != nullptr;
    variant.call = [callable, state, name, fresh](int set) {
      // Fresh values: the sample's calls go to one buffer each, every one refilled before it.
      const auto k = fresh ? state->next++ % state->buffers.size() : std::size_t(set) % state->buffers.size();
      if (fresh && state->seen[k]) throw std::logic_error("a fresh-values buffer was called twice in one sample");
      try {
        PendingCall call{state->holds[k], callable(*state->buffers[k]), {}};
        if (fresh) {
          call.values = int(k);
          call.draw = state->draws[k];
          if (!state->drawn_under.empty()) call.fresh_reveal = state->drawn_under[k];
          state->seen[k] = true;
        }
        state->pending.push_back(std::move(call));
      } catch (const py::error_already_set& e) {
        throw VariantError{name, python_error_type(e), describe_python_error(e)};
      }
    };
  }
  if (!audit_) {
    variant.after_sample = [state](bool) { state->pending.clear(); };
    return variant;
  }
  if (fresh_ && state->graphs.empty()) {
    if (audit_->settings().commit) add_committed_fresh_hooks(variant, state, name);
    else add_fresh_hooks(variant, state, name);
    return variant;
  }
  // A graph replays fixed kernels on fixed buffers with no Python in between, and a copy just
  // before it would leave dirty L2 lines inside the timed replay; its values stay put.
  if (audit_->settings().rotate && sets_interchangeable_ && state->graphs.empty() && input_sets_.size() > 1) {
    variant.before_sample = [this, state](int set) {
      const auto k = std::size_t(set) % state->buffers.size();
      const int values = audit_->draw_value_set();
      if (values == state->holds[k]) return;
      const py::list& source = input_sets_[std::size_t(values)];
      for (std::size_t i = 0; i < source.size(); ++i)
        if (is_tensor(source[i])) to_tensor(state->buffers[k][i]).copy_(to_tensor(source[i]));
      state->holds[k] = values;
    };
  }
  variant.after_sample = [this, state, name](bool warmup) {
    auto pending = std::move(state->pending);
    state->pending.clear();
    for (auto& call : pending) audit_->audit(name, {state->calls++, call.values, warmup}, call.output, state->keep);
    audit_->end_sample();  // commit mode: this sample's roots out, the leaves to open back
  };
  return variant;
}

template <class State>
void TimingSession::add_fresh_hooks(ProtocolVariant& variant, const std::shared_ptr<State>& state,
                                    const std::string& name) {
  state->draws.resize(state->buffers.size());
  state->seen.assign(state->buffers.size(), true);  // the sets' values: every variant's, not fresh
  variant.max_calls_per_sample = int(state->buffers.size());
  variant.before_sample = [this, state](int set) {
    const auto start = std::chrono::steady_clock::now();
    state->next = std::size_t(set) % state->buffers.size();
    for (std::size_t k = 0; k < state->buffers.size(); ++k) {
      if (!state->seen[k]) continue;
      state->draws[k] = fresh_->refill(state->buffers[k]);
      state->seen[k] = false;
    }
    audit_->add_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  variant.after_sample = [this, state, name](bool warmup) {
    // A kernel still writing after forward returned must be done before anything is read.
    if (synchronize_) synchronize_();
    std::vector<std::pair<CallAudit::Taken, FreshInputs::Draw>> taken;
    for (auto& call : state->pending) {
      CallRecord record{state->calls++, call.values, warmup, call.draw.seed};
      taken.emplace_back(audit_->take(name, record, call.output, state->keep), call.draw);
    }
    state->pending.clear();  // the outputs are poisoned and dropped before any reference runs
    struct Release {
      FreshInputs& fresh;
      ~Release() { fresh.release(); }
    } release{*fresh_};
    for (const auto& [call, draw] : taken)
      audit_->compare_taken(name, call, [this, &draw = draw] { return fresh_->reference_outputs(draw); });
  };
}

// Blinded (commit mode): the judged variant's values come from the controller's seeds, each
// buffer's from the last reveal answered before its sample (exec/call_reveal.hpp), so the
// values of sample s exist only once sample s - 1 is committed, and the judge, which holds the
// controller's record, rebuilds them. No reference runs here; the baselines get values of this
// process's own seeds, built the same way (same cost, nothing compared).
template <class State>
void TimingSession::add_committed_fresh_hooks(ProtocolVariant& variant, const std::shared_ptr<State>& state,
                                              const std::string& name) {
  const bool judged = name == audit_->settings().judged;
  state->draws.resize(state->buffers.size());
  state->drawn_under.assign(state->buffers.size(), -1);
  state->seen.assign(state->buffers.size(), true);
  variant.max_calls_per_sample = int(state->buffers.size());
  variant.before_sample = [this, state, judged](int set) {
    const auto start = std::chrono::steady_clock::now();
    state->next = std::size_t(set) % state->buffers.size();
    const int reveal = judged ? audit_->fresh_reveal() : -1;
    for (std::size_t k = 0; k < state->buffers.size(); ++k) {
      if (!state->seen[k]) continue;
      const long long seed = judged ? fresh_call_seed(audit_->reveal_seed(reveal), int(k)) : -1;
      state->draws[k] = fresh_->refill(state->buffers[k], seed, false);
      state->drawn_under[k] = reveal;
      state->seen[k] = false;
    }
    audit_->add_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  variant.after_sample = [this, state, name, judged](bool warmup) {
    // A kernel still writing after forward returned must be done before anything is hashed.
    if (synchronize_) synchronize_();
    auto pending = std::move(state->pending);
    state->pending.clear();
    for (auto& call : pending)
      audit_->audit(name, {state->calls++, call.values, warmup, judged ? call.draw.seed : -1, call.fresh_reveal},
                    call.output, state->keep);
    audit_->end_sample();
  };
}

ProtocolRun TimingSession::measure(const std::vector<NamedCallable>& variants, const ResolvedTiming& timing,
                                   const std::map<std::string, int>& max_rounds) {
  // Alone on the GPU while timing: workers sharing it wait (lib/worker/gpu_lock.hpp).
  const GpuLockScope alone(GpuLock::Mode::exclusive);
  std::vector<ProtocolVariant> protocol_variants;
  for (const auto& [name, callable] : variants) {
    protocol_variants.push_back(make_variant(callable, timing, name));
    if (const auto cap = max_rounds.find(name); cap != max_rounds.end()) protocol_variants.back().max_rounds = cap->second;
  }
  ProtocolHooks hooks;
  if (flush_buffer_.defined()) {
    if (timing.mode == TimingMode::kernelbench) {
      hooks.flush = [this] { flush_buffer_.zero_(); };  // KernelBench writes its buffer
    } else {
      // Read, don't write: a written buffer leaves L2 full of dirty lines whose write-back
      // lands inside the next timed kernel (measured on the H200: +8-10 us on 60-90 us
      // kernels against ncu). Reading evicts everything and leaves only clean lines.
      hooks.flush = [this] { (void)flush_buffer_.sum(); };
    }
  }
  if (monitor_ && monitor_->available()) hooks.on_round = [this] { readings_.push_back(monitor_->read()); };
  // Whatever way the measurement ends, its clones and graphs go with it.
  struct Release {
    std::vector<py::object>& held;
    ~Release() { held.clear(); }
  } release{keep_alive_};
  if (timing.mode == TimingMode::kernelbench) return run_kernelbench_style(*timer_, protocol_variants, hooks);
  return run_interleaved(*timer_, protocol_variants, timing, hooks);
}

void TimingSession::store(const ProtocolRun& run, const ResolvedTiming& timing, JobResult& result) const {
  for (const auto& [name, record] : run.variants) {
    if (record.samples_ms.empty()) continue;
    Measurement m;
    m.timer = timer_name_;
    m.mode = to_string(timing.mode);
    m.statistic = timing.mode == TimingMode::kernelbench ? "mean" : "median";
    m.samples_ms = record.samples_ms;
    m.rounds = record.rounds;
    m.offstream_samples = record.offstream_samples;
    m.discarded_samples = record.discarded_samples;
    m.calls_per_sample = record.calls_per_sample;
    m.warmup_calls = record.warmup_calls;
    result.timings[name] = std::move(m);
  }
  // Hot and graph samples are not flushed (only their warmup calls are).
  const bool flushed = timing.mode == TimingMode::cold || timing.mode == TimingMode::kernelbench;
  nlohmann::json notes = notes_;
  for (const auto& [name, record] : run.variants)
    if (!record.blocking) notes["blocking_kernel_disabled"].push_back(name);
  nlohmann::json protocol = {{"preset", to_string(timing.preset)},
                             {"mode", to_string(timing.mode)},
                             {"timer", timer_name_},
                             {"rounds", run.rounds},
                             {"converged", run.converged},
                             {"stop_reason", run.stop_reason},
                             {"wall_s", run.wall_s},
                             {"target_ci", timing.target_ci},
                             {"samples_per_round", timing.samples_per_round},
                             {"input_sets", int(input_sets_.size())},
                             {"flush_bytes", flushed ? flush_bytes_ : 0},
                             {"empty_overhead_ms", empty_overhead_ms_}};
  if (monitor_ && monitor_->available())
    protocol["clocks"] = summarize_clocks(readings_, monitor_->max_sm_clock_mhz());
  if (!notes.empty()) protocol["notes"] = notes;
  result.protocol.update(protocol);
}

}  // namespace kbench
