#include "service/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/error.hpp"
#include "core/hmac_sha256.hpp"
#include "core/text.hpp"
#include "device/device_resolution.hpp"
#include "exec/controller.hpp"
#include "generate/code_extraction.hpp"
#include "run/job_planning.hpp"
#include "model/run_info.hpp"
#include "run/run_session.hpp"
#include "run/suite_runner.hpp"
#include "run/turn_feedback.hpp"
#include "run/work_dir.hpp"
#include "suite/number_range.hpp"
#include "service/candidate_store.hpp"

namespace kbench {
namespace {

using Clock = std::chrono::steady_clock;
using Reason = EvaluatorRefusal::Reason;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Ids go into URLs and log lines: a short, plain alphabet.
bool valid_request_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (const char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' || c == '-')) return false;
  return true;
}

double number_or_zero(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The worker's own timeline (diagnostics.worker_timeline): Python and torch start-up, the hold
// of a pre-started worker, then each evaluation phase (worker/phase_clock.hpp).
nlohmann::json worker_phases(const nlohmann::json& diagnostics) {
  nlohmann::json phases = nlohmann::json::object();
  const auto timeline = diagnostics.find("worker_timeline");
  if (timeline == diagnostics.end() || !timeline->is_object()) return phases;
  if (const double startup = number_or_zero(*timeline, "startup_s"); startup > 0) phases["python_start"] = startup;
  if (const double held = number_or_zero(*timeline, "held_s"); held > 0) phases["prestart_hold"] = held;
  if (const auto inner = timeline->find("phases_s"); inner != timeline->end() && inner->is_object())
    for (const auto& [name, value] : inner->items())
      if (value.is_number()) phases[name] = value;
  return phases;
}

// Workers besides the one whose timeline that is: the trusted worker that measured the kept
// record, a first attempt a drift fallback discarded, the reference worker and the judge of a
// blinded job. Without them a result's phases would not add up to its worker wall.
void add_other_workers(nlohmann::json& phases, const JobResult& result) {
  if (result.kept_reference && result.kept_reference->refresh_s > 0)
    phases["kept_reference_refresh"] = result.kept_reference->refresh_s;
  if (const auto kept = result.diagnostics.find("kept_reference"); kept != result.diagnostics.end() && kept->is_object())
    if (const auto first = kept->find("first_attempt"); first != kept->end() && first->is_object())
      if (const double wall = number_or_zero(*first, "wall_s"); wall > 0) phases["drift_fallback_first_attempt"] = wall;
  if (const auto isolation = result.diagnostics.find("isolation"); isolation != result.diagnostics.end() && isolation->is_object()) {
    if (const double wall = number_or_zero(*isolation, "reference_worker_s"); wall > 0) phases["blinded_reference_worker"] = wall;
    if (const double wall = number_or_zero(*isolation, "judge_worker_s"); wall > 0) phases["judge_worker"] = wall;
  }
}

void add_phases(nlohmann::json& sums, const nlohmann::json& phases) {
  if (!phases.is_object()) return;
  for (const auto& [name, value] : phases.items())
    if (value.is_number()) sums[name] = sums.value(name, 0.0) + value.get<double>();
}

}  // namespace

std::string to_string(EvaluatorRefusal::Reason reason) {
  switch (reason) {
    case Reason::unknown_problem: return "unknown_problem";
    case Reason::bad_request: return "bad_request";
    case Reason::conflict: return "conflict";
    case Reason::queue_full: return "queue_full";
    case Reason::draining: return "draining";
  }
  return "bad_request";
}

std::string to_string(RequestState state) {
  switch (state) {
    case RequestState::queued: return "queued";
    case RequestState::running: return "running";
    case RequestState::finished: return "finished";
    case RequestState::evicted: return "evicted";
  }
  return "queued";
}

nlohmann::json to_json(const EvaluatorStats& stats) {
  return {{"queued", stats.queued},
          {"running", stats.running},
          {"finished", stats.finished},
          {"refused_queue_full", stats.refused_queue_full},
          {"max_queued", stats.max_queued},
          {"slots", stats.slots},
          {"accepting", stats.accepting},
          {"by_status", stats.by_status},
          {"time_sums", to_json(stats.time_sums)},
          {"reference_fill", to_json(stats.fill)},
          {"kept_results", stats.kept},
          {"evicted_results", {{"count", stats.evicted_by_count}, {"age", stats.evicted_by_age}}},
          {"keep_finished", stats.keep_finished},
          {"keep_finished_s", stats.keep_finished_s ? nlohmann::json(*stats.keep_finished_s) : nlohmann::json()}};
}

struct Evaluator::State {
  struct Entry {
    std::string request_id, problem_id, backend, digest;
    std::optional<std::string> session_id;
    RequestState state = RequestState::queued;
    Clock::time_point submitted, started;
    bool has_started = false;
    std::size_t attempt = 1;
    std::promise<Evaluation> promise;
    Handle future;
    std::vector<Listener> listeners;
  };

  EvaluatorConfig config;
  Suite suite;
  std::vector<Device> devices;
  std::filesystem::path work_dir;
  bool temporary_work_dir = false;
  std::optional<CandidateStore> store;
  nlohmann::json environment;
  std::unique_ptr<RunSession> session;
  std::thread runner;

  // Lock order: push_mutex (submit only) before the session's lock before `mutex`. The
  // session's callbacks hold its lock and take only `mutex`; submit never holds `mutex` while
  // it pushes.
  std::mutex push_mutex;
  std::mutex drain_mutex;
  mutable std::mutex mutex;
  bool accepting = true;
  bool drained = false;
  std::size_t next_index = 0;
  std::size_t auto_ids = 0;
  std::map<std::size_t, std::shared_ptr<Entry>> by_index;  // queued or running
  std::unordered_map<std::string, std::shared_ptr<Entry>> by_id;
  std::optional<ResultRetention> retention;  // which finished entries by_id still holds
  ReferenceFill fill;
  EvaluatorStats stats;

  void log(const std::string& line) const {
    if (config.log) config.log(line);
  }

  // Under `mutex`: drops from by_id the finished entries the retention evicted.
  void drop(const std::vector<std::string>& evicted) {
    for (const auto& id : evicted)
      if (const auto it = by_id.find(id); it != by_id.end() && it->second->state == RequestState::finished)
        by_id.erase(it);
  }
  void expire() { drop(retention->expire(Clock::now())); }

  const Problem* find_problem(const std::string& id) const {
    for (const auto& p : suite.problems)
      if (p.id == id) return &p;
    return nullptr;
  }

  void on_start(std::size_t index) {
    std::lock_guard lock(mutex);
    if (fill.started(index)) return;
    const auto it = by_index.find(index);
    if (it == by_index.end()) return;
    auto& entry = *it->second;
    entry.state = RequestState::running;
    entry.started = Clock::now();
    entry.has_started = true;
    --stats.queued;
    ++stats.running;
  }

  void on_result(std::size_t index, const JobResult& result) {
    std::shared_ptr<Entry> entry;
    {
      std::lock_guard lock(mutex);
      const auto it = by_index.find(index);
      if (it == by_index.end()) return;
      entry = it->second;
      by_index.erase(it);
    }
    finish(*entry, result, true);
  }

  // The entry's evaluation is `result`: kept for lookup, counted, handed to its waiters.
  // `queued`: it was counted as queued or running (a reply without code never was).
  void finish(Entry& e, const JobResult& result, bool queued) {
    const auto now = Clock::now();
    auto* entry = &e;
    Evaluation evaluation;
    evaluation.request_id = entry->request_id;
    evaluation.session_id = entry->session_id;
    evaluation.backend = entry->backend;
    evaluation.result = result;
    auto& time = evaluation.time;
    time.queue_wait_s = entry->has_started ? seconds_between(entry->submitted, entry->started) : 0.0;
    time.worker_wall_s = result.wall_s;
    time.gpu_lock_wait_s = number_or_zero(result.protocol, "gpu_lock_wait_s");
    time.phases_s = worker_phases(result.diagnostics);
    add_other_workers(time.phases_s, result);
    time.total_s = seconds_between(entry->submitted, now);
    evaluation.feedback = turn_feedback(result).text;
    evaluation.attempt = entry->attempt;
    // Kept once, in the handle's shared state, made ready under the lock together with
    // `finished` and the counts: whoever sees the handle ready sees the lookup and stats agree.
    const Evaluation* finished = nullptr;
    std::vector<Listener> listeners;
    {
      std::lock_guard lock(mutex);
      entry->promise.set_value(std::move(evaluation));
      finished = &entry->future.get();
      const Evaluation& done = *finished;
      if (entry->has_started) --stats.running;
      else if (queued) --stats.queued;
      ++stats.finished;
      ++stats.by_status[to_string(result.status)];
      auto& sums = stats.time_sums;
      sums.queue_wait_s += done.time.queue_wait_s;
      sums.worker_wall_s += done.time.worker_wall_s;
      sums.gpu_lock_wait_s += done.time.gpu_lock_wait_s;
      sums.total_s += done.time.total_s;
      add_phases(sums.phases_s, done.time.phases_s);
      entry->state = RequestState::finished;
      listeners.swap(entry->listeners);
      drop(retention->finished(entry->request_id, EvictedResult{entry->problem_id, entry->digest, entry->attempt, ""},
                               now));
    }
    for (const auto& listener : listeners) listener(*finished);
  }

  // Requests that will never run (the session failed or was interrupted): their handles fail.
  void fail_unfinished(const std::exception_ptr& error) {
    std::map<std::size_t, std::shared_ptr<Entry>> left;
    {
      std::lock_guard lock(mutex);
      accepting = false;
      left.swap(by_index);
      stats.queued = stats.running = 0;
      for (const auto& [index, entry] : left) by_id.erase(entry->request_id);
    }
    for (const auto& [index, entry] : left) entry->promise.set_exception(error);
  }
};

Evaluator::Evaluator(EvaluatorConfig config) : state_(std::make_unique<State>()) {
  auto& s = *state_;
  s.config = std::move(config);
  if (s.config.max_queued < 1) throw InputError("max_queued must be >= 1");
  s.retention.emplace(RetentionLimits{s.config.keep_finished, s.config.keep_finished_s});
  SuiteRunOptions options;
  options.suite_file = s.config.suite_file;
  options.device = s.config.device;
  options.checks = s.config.checks;
  options.timing_preset = s.config.timing_preset;
  options.jobs = s.config.workers;
  options.workers_per_gpu = s.config.workers_per_gpu.value_or(kEvaluatorWorkersPerGpu);
  options.prestart = s.config.prestart;
  options.keep_reference = s.config.keep_reference;
  options.keep_reference_drift = s.config.keep_reference_drift;
  options.timeout_s = s.config.timeout_s;
  if (s.config.device_memory_gb) check_number(*s.config.device_memory_gb, "--device-memory-gb", "device_memory_gb: ");
  options.device_memory_gb = s.config.device_memory_gb;
  if (options.jobs && *options.jobs < 1) throw InputError(fmt::format("workers = {}: must be >= 1", *options.jobs));
  s.suite = load_run_suite(options);
  if (s.suite.problems.empty()) throw InputError(fmt::format("{}: the suite has no problems", s.suite.file.string()));
  s.devices = resolve_devices(options.device);
  const Device device = run_device(s.devices);
  s.temporary_work_dir = !s.config.work_dir;
  // Absolute: each worker runs in its own job folder, so a relative path would miss its files.
  s.work_dir = s.temporary_work_dir ? make_temp_work_dir("kbench-evaluator")
                                     : std::filesystem::absolute(*s.config.work_dir);
  std::error_code error;
  std::filesystem::create_directories(s.work_dir / "jobs", error);
  if (error)
    throw InputError(fmt::format("work dir {}: cannot be created: {}", s.work_dir.string(), error.message()));
  s.store.emplace(s.work_dir / "candidates");
  // Probed now, so a broken environment is one error here rather than one per request.
  s.environment = probe_environment(s.devices.front(), s.work_dir / "jobs");

  SessionSetup setup;
  setup.devices = s.devices;
  setup.work_dir = s.work_dir / "jobs";
  apply_scheduling(options, device, setup);
  setup.environment = s.environment;
  setup.log = s.config.log;
  setup.keep_results = false;  // the Evaluator keeps its own, bounded by keep_finished
  setup.on_start = [&s](std::size_t index) { s.on_start(index); };
  setup.on_result = [&s](std::size_t index, const JobResult& result, bool) { s.on_result(index, result); };
  setup.on_fill = [&s](std::size_t index, const JobResult& result) {
    std::lock_guard lock(s.mutex);
    s.fill.finished(index, result);
  };
  RunReport header;
  header.suite_name = s.suite.name;
  header.suite_file = s.suite.file;
  header.device = device;
  header.run = current_run_info();
  s.session = std::make_unique<RunSession>(std::move(setup), std::move(header), std::vector<Job>{});
  s.stats.max_queued = s.config.max_queued;
  s.stats.slots = s.session->slot_count();
  if (s.config.fill_reference) {
    s.log(s.fill.queue(*s.session, s.suite, s.devices.front()));
    s.next_index = s.fill.next_index();
  } else {
    s.fill.turn_off("off (fill_reference off)");
  }
  s.runner = std::thread([&s] {
    try {
      s.session->run();
      s.fail_unfinished(std::make_exception_ptr(
          EnvironmentError("the evaluator stopped (interrupted) before this request ran")));
    } catch (...) {
      s.log("kbench: the evaluator's session failed; requests still queued fail with its error");
      s.fail_unfinished(std::current_exception());
    }
  });
  s.log(fmt::format("kbench: evaluator over suite '{}' ({} problems) on {}, {} worker slot{}", s.suite.name,
                    s.suite.problems.size(), to_string(device), s.stats.slots, s.stats.slots == 1 ? "" : "s"));
}

Evaluator::~Evaluator() {
  try {
    drain();
  } catch (...) {
    // A destructor does not throw; drain() already logged what it could.
  }
}

Evaluator::Handle Evaluator::submit(EvaluationRequest request, Listener on_done) {
  auto& s = *state_;
  const Problem* problem = s.find_problem(request.problem_id);
  if (!problem) {
    std::vector<std::string> ids = problem_ids();
    const auto near = closest_match(request.problem_id, ids);
    throw EvaluatorRefusal(Reason::unknown_problem,
                           fmt::format("unknown problem '{}'{}; suite '{}' has {} problems ({})", request.problem_id,
                                       near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near), s.suite.name,
                                       ids.size(), join(std::vector<std::string>(ids.begin(), ids.begin() + std::min<std::size_t>(ids.size(), 8)), ", ") + (ids.size() > 8 ? ", ..." : "")));
  }
  const auto& backends = evaluation_backends();
  if (std::find(backends.begin(), backends.end(), request.backend) == backends.end())
    throw EvaluatorRefusal(Reason::bad_request,
                           fmt::format("backend '{}' is not one of {}", request.backend, join(backends, ", ")));
  if (request.source.empty()) throw EvaluatorRefusal(Reason::bad_request, "source is empty: send the candidate's Python file");
  if (request.request_id && !valid_request_id(*request.request_id))
    throw EvaluatorRefusal(Reason::bad_request, "request_id must be 1-128 characters of A-Z a-z 0-9 . _ : -");
  const std::string digest =
      to_hex(sha256(request.problem_id + '\0' + request.backend + '\0' + request.source));

  std::lock_guard push_lock(s.push_mutex);
  std::string request_id;
  std::size_t attempt = 1;
  {
    std::unique_lock lock(s.mutex);
    if (!s.accepting) throw EvaluatorRefusal(Reason::draining, "the evaluator is draining: it accepts no new requests");
    s.expire();
    if (request.request_id) {
      request_id = *request.request_id;
      // An evicted id is evaluated afresh (a trainer retrying after a long pause gets a reward,
      // not a refusal), but only for the candidate it named: another is still a conflict.
      if (const EvictedResult* gone = s.retention->evicted(request_id)) {
        if (gone->digest != digest)
          throw EvaluatorRefusal(Reason::conflict,
                                 fmt::format("request_id '{}' was already used for another candidate or problem "
                                             "(its result has since been evicted)",
                                             request_id));
        attempt = gone->attempts + 1;
      }
      if (const auto it = s.by_id.find(request_id); it != s.by_id.end()) {
        const auto entry = it->second;
        if (entry->digest != digest)
          throw EvaluatorRefusal(Reason::conflict,
                                 fmt::format("request_id '{}' was already used for another candidate or problem",
                                             request_id));
        if (entry->state == RequestState::finished) s.retention->touched(request_id, Clock::now());
        if (on_done) {
          if (entry->state == RequestState::finished) {
            const auto handle = entry->future;
            lock.unlock();
            on_done(handle.get());
          } else {
            entry->listeners.push_back(std::move(on_done));
          }
        }
        return entry->future;
      }
    } else {
      // A hash of the candidate, a counter and the clock: unique in practice; a client id that
      // happens to equal one is a conflict, never a silent share.
      request_id = "r-" + to_hex(sha256(fmt::format("{}:{}:{}", digest, ++s.auto_ids,
                                                     Clock::now().time_since_epoch().count())))
                              .substr(0, 20);
    }
    if (s.stats.queued >= s.config.max_queued) {
      ++s.stats.refused_queue_full;
      throw EvaluatorRefusal(Reason::queue_full,
                             fmt::format("queue full: {} requests are waiting for a worker (max_queued {}); retry later",
                                         s.stats.queued, s.config.max_queued));
    }
  }
  // A reply's code is what runs; the reply itself is stored too (its text is the evidence).
  std::optional<ExtractedCode> extracted;
  if (request.is_reply) extracted = extract_code(request.source);
  const auto file = s.store->put(extracted && extracted->code ? *extracted->code : request.source);
  Job job = make_job(*problem, file, s.devices.front());
  job.candidate = request_id + ".py";
  auto entry = std::make_shared<State::Entry>();
  entry->request_id = request_id;
  entry->problem_id = request.problem_id;
  entry->backend = request.backend;
  entry->digest = digest;
  entry->attempt = attempt;
  entry->session_id = request.session_id;
  entry->submitted = Clock::now();
  entry->future = entry->promise.get_future().share();
  if (on_done) entry->listeners.push_back(std::move(on_done));
  if (extracted && !extracted->code) {
    JobResult no_code;
    no_code.job = std::move(job);
    no_code.status = Status::no_code;
    no_code.message = fmt::format("the reply held no code ({})", extracted->rule);
    {
      std::lock_guard lock(s.mutex);
      s.by_id[request_id] = entry;
    }
    s.finish(*entry, no_code, false);
    return entry->future;
  }
  std::size_t index = 0;
  {
    std::lock_guard lock(s.mutex);
    index = s.next_index++;
    s.by_index[index] = entry;
    s.by_id[request_id] = entry;
    ++s.stats.queued;
  }
  // A session's turns are one problem's: its reference work is kept from the first turn on.
  if (request.session_id) s.session->expect_repeats(job);
  const std::size_t pushed = s.session->push(std::move(job));
  if (pushed != index) throw std::logic_error("Evaluator: the session's job index is not the one predicted");
  return entry->future;
}

std::optional<RequestStatus> Evaluator::lookup(const std::string& request_id) const {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  s.expire();
  const auto it = s.by_id.find(request_id);
  if (it == s.by_id.end()) {
    const EvictedResult* gone = s.retention->evicted(request_id);
    if (!gone) return std::nullopt;
    return RequestStatus{request_id, gone->problem_id, std::nullopt, RequestState::evicted, std::nullopt, *gone};
  }
  const auto& entry = *it->second;
  RequestStatus status{entry.request_id, entry.problem_id, entry.session_id, entry.state, std::nullopt, std::nullopt};
  if (entry.state == RequestState::finished) {
    status.evaluation = entry.future.get();  // set before `finished`
    s.retention->touched(request_id, Clock::now());
  }
  return status;
}

EvaluatorStats Evaluator::stats() const {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  s.expire();  // a /metrics scrape is a touch: an idle server still lets old results go
  EvaluatorStats stats = s.stats;
  stats.accepting = s.accepting;
  stats.fill = s.fill.stats();
  stats.kept = s.retention->kept();
  stats.evicted_by_count = s.retention->evicted_by_count();
  stats.evicted_by_age = s.retention->evicted_by_age();
  stats.keep_finished = s.retention->limits().keep;
  stats.keep_finished_s = s.retention->limits().keep_s;
  return stats;
}

std::vector<std::string> Evaluator::problem_ids() const {
  std::vector<std::string> ids;
  for (const auto& p : state_->suite.problems) ids.push_back(p.id);
  return ids;
}

nlohmann::json Evaluator::environment() const { return state_->environment; }

void Evaluator::drain() {
  auto& s = *state_;
  std::lock_guard drain_lock(s.drain_mutex);
  if (s.drained) return;
  {
    std::lock_guard push_lock(s.push_mutex);  // no push in flight once accepting is false
    std::lock_guard lock(s.mutex);
    s.accepting = false;
  }
  // Filling ahead is for requests to come: none will, so fills not started are dropped.
  const auto cancelled = s.session->cancel_reference_fills();
  {
    std::lock_guard lock(s.mutex);
    s.fill.cancelled(cancelled.size());
  }
  if (!cancelled.empty())
    s.log(fmt::format("kbench: draining: {} reference fill{} not started dropped", cancelled.size(),
                      cancelled.size() == 1 ? "" : "s"));
  s.session->close();
  if (s.runner.joinable()) s.runner.join();
  s.session.reset();
  s.drained = true;
  if (s.temporary_work_dir) {
    std::error_code ignored;
    std::filesystem::remove_all(s.work_dir, ignored);
  }
  s.log("kbench: evaluator drained");
}

}  // namespace kbench
