#include "run/run_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>
#include <map>

#include "core/error.hpp"
#include "exec/controller.hpp"
#include "report/terminal_table.hpp"
#include "run/journal.hpp"
#include "run/work_dir.hpp"

namespace kbench {

struct RunSession::State {
  SessionSetup setup;
  RunReport report;
  std::vector<WorkerSlot> slots;
  JobQueue queue;
  std::optional<Journal> journal;
  bool replaced_journal = false;
  std::size_t planned = 0;       // the plan's jobs: the journal header's
  std::size_t expected = 0;      // expect()
  std::size_t already_done = 0;  // the plan's jobs finished by an earlier session
  // Pushed jobs the journal holds, by key, with the build that measured each.
  std::map<std::string, std::pair<JobResult, std::string>> resumable;
  std::map<std::string, std::size_t> other_builds;  // resumed plan results of another build, by build
  std::deque<std::string> keys;                // per index; "" without a journal
  std::deque<std::optional<JobResult>> by_index;
  // Serialises results, reports and the user's callback. Recursive: the callback may push(),
  // and a push answered from the journal calls the callback again.
  std::recursive_mutex mutex;
  ProgressTracker tracker{0, 0};
  std::exception_ptr producer_failure;
  std::atomic<bool> failed{false};
  bool environment_known = false;
  std::shared_future<nlohmann::json> probe;
  std::shared_ptr<KeptReferenceStore> kept;  // null: --keep-reference off

  void log(const std::string& line) const {
    if (setup.log) setup.log(line);
  }
  void show_progress() const {
    if (setup.progress) setup.progress(tracker);
  }
  void write_reports() const {
    if (setup.reporters) setup.reporters->write(report);
  }
  std::size_t fills = 0;  // reference fills pushed: indices, not jobs of the run
  void update_planned() {
    report.planned_jobs = std::max(expected, by_index.size() - fills);
    tracker.set_total(report.planned_jobs);
  }
  void collect() {
    if (!setup.keep_results) return;
    report.results.clear();
    for (const auto& r : by_index)
      if (r) report.results.push_back(*r);
    if (setup.report_order) std::stable_sort(report.results.begin(), report.results.end(), setup.report_order);
  }
  void await_environment() {
    if (environment_known) return;
    report.environment = probe.get();
    environment_known = true;
    log("kbench: " + environment_line(report.environment, report.device));
    write_reports();
  }
  // A result that is done now: into the report and the outputs, then the user's callback.
  void deliver(std::size_t index, JobResult result, bool resumed) {
    by_index[index] = std::move(result);
    collect();
    write_reports();
    show_progress();
    if (setup.on_result) setup.on_result(index, *by_index[index], resumed);
    if (!setup.keep_results) by_index[index].reset();
  }
};

RunSession::RunSession(SessionSetup setup, RunReport report, const std::vector<Job>& plan)
    : state_(std::make_unique<State>()) {
  auto& s = *state_;
  s.setup = std::move(setup);
  s.report = std::move(report);
  s.report.results.clear();
  s.slots = plan_slots(s.setup.devices, s.setup.jobs, s.setup.workers_per_gpu, gpu_lock_dir());
  if (s.setup.keep_reference != KeepReference::off) {
    // Keys name the device model and versions: the probe's, asked for once a job needs a key.
    State* state = &s;
    s.kept = std::make_shared<KeptReferenceStore>(s.setup.work_dir / "kept-reference", s.setup.keep_reference,
                                                  s.setup.keep_reference_drift, [state] { return state->probe.get(); });
    for (auto& slot : s.slots) slot.kept_reference = s.kept;
    for (const auto& job : plan) s.kept->expect(job);
  }
  s.planned = plan.size();
  std::vector<bool> done(plan.size(), false);
  if (s.setup.journal_file) {
    const auto keys = job_keys(plan);
    JournalHeader header{s.report.suite_file.string(), s.report.device, plan_fingerprint(s.report.device, keys),
                         plan.size(), s.report.run.started_at};
    if (s.setup.resume) {
      std::vector<JournalEntry> finished, pushed;
      s.journal.emplace(Journal::resume(*s.setup.journal_file, header, plan, keys, finished, pushed,
                                        s.report.run.started_at));
      s.by_index.resize(plan.size());
      for (auto& entry : finished) {
        done[entry.index] = true;
        s.by_index[entry.index] = std::move(entry.result);
        ++s.report.run.measured_by[entry.commit];
        if (entry.commit != s.report.run.git_commit) ++s.other_builds[entry.commit];
      }
      for (auto& entry : pushed)
        s.resumable.emplace(entry.key, std::make_pair(std::move(entry.result), entry.commit));

    } else {
      s.replaced_journal = std::filesystem::exists(*s.setup.journal_file);
      s.journal.emplace(*s.setup.journal_file, header, keys);
    }
    s.keys.assign(keys.begin(), keys.end());
  }
  s.by_index.resize(plan.size());
  s.keys.resize(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) s.queue.push(plan[i], !done[i]);
  s.already_done = std::size_t(std::count(done.begin(), done.end(), true));
  s.tracker = ProgressTracker(plan.size(), s.already_done);
  s.update_planned();
  s.collect();
}

RunSession::~RunSession() = default;

std::size_t RunSession::push(Job job) {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  const std::string key = s.journal ? job_key(job) : "";
  if (s.kept) s.kept->expect(job);
  const auto resumed = key.empty() ? s.resumable.end() : s.resumable.find(key);
  const bool pending = resumed == s.resumable.end();
  const std::size_t index = s.queue.push(job, pending);
  s.by_index.emplace_back();
  s.keys.push_back(key);
  s.update_planned();
  if (pending) return index;
  JobResult result = std::move(resumed->second.first);
  ++s.report.run.measured_by[resumed->second.second];
  s.resumable.erase(resumed);
  // The pushed Job carries what the results file does not (settings, sizes).
  const Device ran_on = result.schedule ? result.schedule->device : job.device;
  result.job = std::move(job);
  result.job.device = ran_on;
  s.tracker.already_finished();
  s.deliver(index, std::move(result), true);
  return index;
}

void RunSession::expect_repeats(const Job& job) {
  if (state_->kept) state_->kept->expect(job);
}

std::optional<std::size_t> RunSession::push_reference_fill(Job job, std::string& why) {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  if (!s.kept) {
    why = "off (--keep-reference off)";
    return std::nullopt;
  }
  // The fill is there because requests will repeat the problem: the first one already uses
  // the record (two expected jobs, the store's threshold).
  s.kept->expect(job);
  s.kept->expect(job);
  why = s.kept->off_reason(job);
  if (!why.empty()) return std::nullopt;
  const std::size_t index = s.queue.push(std::move(job), true, JobKind::reference_fill);
  s.by_index.emplace_back();
  s.keys.emplace_back();
  ++s.fills;
  return index;
}

std::vector<std::size_t> RunSession::cancel_reference_fills() { return state_->queue.cancel_pending_fills(); }

std::size_t RunSession::record(JobResult result) {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  const std::size_t index = s.queue.push(result.job, false);
  s.by_index.emplace_back();
  s.keys.emplace_back();
  s.update_planned();
  s.tracker.already_finished();
  s.deliver(index, std::move(result), false);
  return index;
}

void RunSession::expect(std::size_t total) {
  std::lock_guard lock(state_->mutex);
  state_->expected = total;
  state_->update_planned();
}

void RunSession::close() { state_->queue.close(); }

void RunSession::fail(std::exception_ptr error) {
  std::lock_guard lock(state_->mutex);
  if (!state_->producer_failure) state_->producer_failure = std::move(error);
  state_->failed = true;
}

std::size_t RunSession::slot_count() const { return state_->slots.size(); }
std::size_t RunSession::resumed_count() const { return state_->already_done; }

void RunSession::note_generation(std::size_t requests_in_flight, std::int64_t tokens) {
  std::lock_guard lock(state_->mutex);
  state_->tracker.set_generation(requests_in_flight, tokens);
  state_->show_progress();
}

RunReport RunSession::run() {
  auto& s = *state_;
  if (s.already_done)
    s.log(fmt::format("kbench: resuming from {}: {} of {} evaluations already done",
                      s.setup.journal_file->string(), s.already_done, s.planned));
  else if (s.journal)
    s.log(fmt::format("kbench: journal {}{}", s.setup.journal_file->string(),
                      s.replaced_journal ? " (started afresh; use --resume to continue a run)" : ""));
  // Results of another build stay (nothing measured is lost); the results file says which.
  for (const auto& [commit, count] : s.other_builds)
    s.log(fmt::format("kbench: {} of them measured by build {}, not this one ({}); the results file's "
                      "measured_by counts each build's results",
                      count, commit, s.report.run.git_commit));
  {
    std::lock_guard lock(s.mutex);
    // A results file exists from the start, whatever happens next.
    s.report.environment = nlohmann::json::object();  // filled in by the probe below
    s.write_reports();
    // The plan's results from an earlier session, to a user who builds on results (the agent).
    if (s.setup.on_result)
      for (std::size_t i = 0; i < s.planned; ++i)
        if (s.by_index[i]) s.setup.on_result(i, *s.by_index[i], true);
  }
  // The probe (its own Python start, about 4 s) runs beside the first jobs instead of before
  // them. Every result waits for it, so nothing is recorded from an environment that turns out
  // unusable: its EnvironmentError ends the run before the first result is kept.
  const auto known = s.setup.environment;
  const Device probe_device = s.setup.devices.front();
  const auto work_dir = s.setup.work_dir;
  s.probe = std::async(std::launch::async, [known, probe_device, work_dir] {
    return known ? *known : probe_environment(probe_device, work_dir);
  });

  ControllerOptions controller;
  controller.work_dir = s.setup.work_dir;
  controller.slots = s.slots;
  controller.prestart = s.setup.prestart ? 2 : 0;
  controller.device_memory_bytes = device_memory(s.slots);
  if (s.setup.device_memory_gb) {
    const auto cap = static_cast<long long>(*s.setup.device_memory_gb * double(1LL << 30));
    for (const auto& slot : s.slots) {
      if (!slot.device) continue;
      auto& bytes = controller.device_memory_bytes[to_string(*slot.device)];
      bytes = bytes > 0 ? std::min(bytes, cap) : cap;
    }
  }
  controller.stop = [&s] { return s.failed.load(); };
  controller.on_start = [&s](std::size_t index, const Job& job, int) {
    std::lock_guard lock(s.mutex);
    if (s.queue.kind(index) == JobKind::reference_fill) {
      if (s.setup.on_start) s.setup.on_start(index);
      return;
    }
    s.tracker.started(index, job.problem_id + "/" + job.candidate);
    s.show_progress();
    if (s.setup.on_start) s.setup.on_start(index);
  };
  controller.on_result = [&s](std::size_t index, const JobResult& result) {
    std::lock_guard lock(s.mutex);
    s.await_environment();
    if (s.queue.kind(index) == JobKind::reference_fill) {
      s.log(fmt::format("kbench: reference fill {}: {} ({:.1f} s)", result.job.problem_id,
                        is_correct(result.status) ? result.message : "failed: " + result.message,
                        result.wall_s));
      if (s.setup.on_fill) s.setup.on_fill(index, result);
      return;
    }
    // The journal first, fsynced: a crash after this line loses no finished job.
    if (s.journal) {
      if (index < s.planned) s.journal->append(index, result);
      else s.journal->append(index, s.keys[index], result);
    }
    s.tracker.finished(index, !is_correct(result.status));
    ++s.report.run.measured_by[s.report.run.git_commit];
    s.by_index[index] = result;  // so the progress line counts it
    s.log(progress_line(result, s.tracker.done(), s.report.planned_jobs));
    s.deliver(index, result, false);
  };
  // Leaving early waits for the probe (std::async's shared state), so nothing outlives run().
  run_jobs(s.queue, controller);
  std::lock_guard lock(s.mutex);
  s.await_environment();  // no job finished (all resumed, or interrupted early)
  if (s.producer_failure) std::rethrow_exception(s.producer_failure);
  s.report.run.finished_at = utc_now_iso8601();
  if (s.setup.reporters) s.setup.reporters->finish(s.report);
  return s.report;
}

}  // namespace kbench
