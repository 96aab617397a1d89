#pragma once
// The in-process evaluation service: a long-lived object that owns one RunSession (its run() on
// a thread of its own) over a suite, and turns requests into jobs pushed into it. `kbench serve`
// (HTTP) and the `kbench` Python module are thin layers over this class.
//
// - Candidates run exactly as in `kbench run`: the same suite resolution (load_run_suite), the
//   same worker slots, sandboxed `kbench-worker` processes, checks and timing.
// - A candidate's fault is a result (a status), never an exception. Exceptions are for the
//   request itself (EvaluatorRefusal: unknown problem, bad field, queue full, draining, an id
//   reused for another candidate) and for the service (EnvironmentError: Python or device).
// - Requests are idempotent by request_id: the same id with the same candidate returns the same
//   handle and runs once. Finished evaluations are kept for lookup up to `keep_finished` (and
//   `keep_finished_s`), the least recently finished or read evicted first (result_retention.hpp);
//   an evicted id looks up as `evicted`, and submitted again it is evaluated afresh (attempt 2).
// - The queue is bounded: submit refuses (queue_full) when `max_queued` requests wait for a
//   worker. Nothing already accepted is dropped: drain() finishes queued and running work.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/evaluation.hpp"
#include "service/reference_fill.hpp"
#include "service/result_retention.hpp"

namespace kbench {

// Workers per GPU when the caller names none. More than `kbench run`'s 2: a reward loop sends
// many short evaluations, whose CPU-side phases (imports, Triton JIT, checks) are several times
// their GPU-exclusive timing, so more workers keep the GPU's timing turn busy while the per-GPU
// lock (gate first: lib/worker/gpu_lock.hpp) still times one at a time. On the H200 the RL
// batch ran at 0.52/s with 4 and 1.21/s with 8 (benchmarks/throughput/README.md). The memory
// ledger admits them by memory, so large problems still run fewer at once.
inline constexpr int kEvaluatorWorkersPerGpu = 8;

struct EvaluatorConfig {
  std::filesystem::path suite_file;
  std::string device = "auto";               // as `kbench run --device`
  std::optional<std::string> checks;         // as --checks (docs/integrity.md); default: the suite's
  std::optional<std::string> timing_preset;  // as --timing-preset (full, rl); default: the suite's
  std::optional<int> workers;                // worker slots, as --jobs; default: as `kbench run`
  std::optional<int> workers_per_gpu;        // default kEvaluatorWorkersPerGpu (kbench run's: 2)
  std::optional<std::string> prestart;       // "on"/"off"; default on with CUDA
  // Reference work kept per problem across requests (docs/timing.md#kept-reference-work): "auto"
  // (default: on a GPU), "on", "off"; the drift check's bound (default 0.02).
  std::optional<std::string> keep_reference;
  std::optional<double> keep_reference_drift;
  // The kept reference of every problem measured in the background from the start (a reference
  // fill), so that no request pays it: on by default wherever reference work is kept (a reward
  // loop sends every problem many times). Requests go first: a fill runs only in a slot no
  // request waits for (docs/serve.md#reference-fill).
  bool fill_reference = true;
  std::optional<double> timeout_s;           // overrides every problem's timeout_s
  // GiB the admission ledger shares out among each device's workers, as `kbench run
  // --device-memory-gb` (docs/memory.md#admission); default 95% of each GPU's, the CPU unbounded.
  std::optional<double> device_memory_gb;
  std::optional<std::filesystem::path> work_dir;  // default: a temporary folder, removed by drain()
  std::size_t max_queued = 256;              // waiting requests before submit refuses
  // Finished evaluations kept for lookup by id (each holds its result with raw samples, ~33 KiB
  // of server memory in the CPU soak): the service's memory is bounded by this, not by how long
  // it runs. 4096 (~130 MiB) holds a large RL step (512 prompts x 8 samples) for reading back;
  // least recently finished or read evicted first. keep_finished_s, when set, also evicts
  // results not finished or read for that many seconds (docs/serve.md#retention).
  std::size_t keep_finished = 4096;
  std::optional<double> keep_finished_s;
  std::function<void(const std::string&)> log;  // one line per event; may be empty
};

class EvaluatorRefusal : public std::runtime_error {
 public:
  enum class Reason { unknown_problem, bad_request, conflict, queue_full, draining };
  EvaluatorRefusal(Reason reason, const std::string& message) : std::runtime_error(message), reason_(reason) {}
  [[nodiscard]] Reason reason() const { return reason_; }

 private:
  Reason reason_;
};
// "unknown_problem", "bad_request", "conflict", "queue_full", "draining".
std::string to_string(EvaluatorRefusal::Reason reason);

// evicted: finished, and its result since dropped from memory (keep_finished / keep_finished_s).
enum class RequestState { queued, running, finished, evicted };
std::string to_string(RequestState state);

struct RequestStatus {
  std::string request_id;
  std::string problem_id;
  std::optional<std::string> session_id;
  RequestState state = RequestState::queued;
  std::optional<Evaluation> evaluation;  // once finished
  std::optional<EvictedResult> evicted;   // state evicted: why, and how many attempts it had
};

struct EvaluatorStats {
  std::size_t queued = 0;    // waiting for a worker
  std::size_t running = 0;
  std::size_t finished = 0;  // since start
  std::size_t refused_queue_full = 0;
  std::size_t max_queued = 0;
  std::size_t slots = 0;
  bool accepting = true;
  std::map<std::string, std::size_t> by_status;  // finished evaluations per status
  TimeSplit time_sums;  // summed over the finished ones (phases_s summed per phase)
  ReferenceFillStats fill;  // the reference fill's progress (EvaluatorConfig::fill_reference)
  std::size_t kept = 0;                 // finished results kept for lookup now
  std::size_t evicted_by_count = 0;     // since start: over keep_finished
  std::size_t evicted_by_age = 0;       // since start: older than keep_finished_s
  std::size_t keep_finished = 0;
  std::optional<double> keep_finished_s;
};
nlohmann::json to_json(const EvaluatorStats& stats);

class Evaluator {
 public:
  using Handle = std::shared_future<Evaluation>;
  using Listener = std::function<void(const Evaluation&)>;

  // Loads the suite, resolves the devices, probes the environment (a broken Python or device
  // is an EnvironmentError now, not one per request) and starts the session. Throws InputError
  // for a bad suite or option.
  explicit Evaluator(EvaluatorConfig config);
  ~Evaluator();  // drain()
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Accepts a request; the handle becomes ready with its Evaluation. `on_done`, when given, is
  // called once with it (at once when it is already finished), on the session's thread: it
  // must be quick and must not call submit(). Throws EvaluatorRefusal.
  Handle submit(EvaluationRequest request, Listener on_done = nullptr);
  // The request's state (a read: a finished one becomes the most recently used); state evicted
  // for an id whose result was evicted and is still remembered; nullopt for an id never seen.
  [[nodiscard]] std::optional<RequestStatus> lookup(const std::string& request_id) const;
  [[nodiscard]] EvaluatorStats stats() const;
  [[nodiscard]] std::vector<std::string> problem_ids() const;
  // The probed environment (versions, device), as in a results file.
  [[nodiscard]] nlohmann::json environment() const;
  // Stops accepting (draining), finishes queued and running evaluations, closes the session,
  // removes a temporary work dir. Idempotent; blocks until done.
  void drain();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kbench
