#pragma once
// A run as an object its users feed: devices -> worker slots -> the environment probe -> the
// scheduler (exec/controller) -> sinks (journal, reports, progress, the user's callback). Jobs
// go into a queue that stays open while the session runs, so three kinds of users share it:
//   - `kbench run` over files pushes the whole plan, closes, and runs (run/suite_runner.cpp);
//   - the multi-turn agent pushes turn 1, then one job per result from its callback or its
//     generation threads, and closes when every conversation is over (run/agent_loop.cpp);
//   - a long-running service pushes jobs as requests come and closes on shutdown.
// Each result is journaled (fsynced), put into the report, written to every output and then
// handed to `on_result`, one result at a time.
//
// Journal and resume (docs/results-format.md#journal): the header fingerprints the jobs known
// when the session is made (the plan); their lines are matched by index as before. Jobs pushed
// later are journaled with their key, and on --resume a pushed job whose key the journal holds
// is answered from it instead of being run again: an agent that pushes the same conversation
// again (its replies come from the generation cache) gets back the same results, in order.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/kept_reference_store.hpp"
#include "model/job.hpp"
#include "device/device.hpp"
#include "exec/job_queue.hpp"
#include "model/job_result.hpp"
#include "report/progress_line.hpp"
#include "report/reporter_set.hpp"
#include "report/run_report.hpp"

namespace kbench {

class Journal;

struct SessionSetup {
  std::vector<Device> devices;  // resolve_devices(); the first one probes
  std::filesystem::path work_dir;    // exists; one job-NNNN folder per job
  std::optional<int> jobs;           // worker slots (plan_slots)
  int workers_per_gpu = 2;
  bool prestart = false;
  // Memory the ledger shares out per device (docs/memory.md#admission): default 95% of each
  // GPU's, the CPU unbounded; given, it caps every device, the CPU included (a host-memory
  // analogue that the CPU tests use).
  std::optional<double> device_memory_gb;
  // Already probed (generation needs the target's facts first); else the probe runs beside
  // the first jobs and every result waits for it.
  std::optional<nlohmann::json> environment;
  std::optional<std::filesystem::path> journal_file;  // none: no journal
  bool resume = false;
  const ReporterSet* reporters = nullptr;  // checked by the caller; may be null
  std::function<void(const std::string&)> log;          // may be empty
  std::function<void(const ProgressTracker&)> progress;  // may be empty
  // The reports' order of results; empty: push order.
  std::function<bool(const JobResult&, const JobResult&)> report_order;
  // Each result once it is journaled and reported, one call at a time; it may push() and
  // close(). Results of the plan resumed from the journal are handed over when run() starts, a
  // pushed job's as it is pushed (resumed = true). Runs under the session's lock and the
  // scheduler's: slow work (a model request) belongs on another thread. An exception ends the
  // run (rethrown by run()).
  std::function<void(std::size_t index, const JobResult& result, bool resumed)> on_result;
  // A job's worker is starting (its queue wait ends); under the session's lock, may be empty.
  // Called for reference fills too.
  std::function<void(std::size_t index)> on_start;
  // A reference fill's outcome (push_reference_fill), under the session's lock; may be empty.
  // Fills are not evaluations: not journaled, reported, counted in progress nor given to on_result.
  std::function<void(std::size_t index, const JobResult& result)> on_fill;
  // false: a result is dropped once on_result has had it, and the report holds none (a
  // long-running service keeps its own, bounded; reporters then see no results).
  bool keep_results = true;
  // Reference work kept across the session's jobs of one problem (exec/kept_reference_job.hpp,
  // docs/timing.md#kept-reference-work), in `<work_dir>/kept-reference/`; the drift check's bound.
  KeepReference keep_reference = KeepReference::automatic;
  double keep_reference_drift = 0.01;
};

class RunSession {
 public:
  // `report` is the run's header (suite, device, generation; results and planned are filled
  // here). `plan`: the jobs known now, pushed in order; the journal's header is theirs.
  // Throws InputError for a journal of another plan (--resume), or one that cannot be written.
  RunSession(SessionSetup setup, RunReport report, const std::vector<Job>& plan);
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  // Adds a job to run; its index. A job the resumed journal already holds is not run: its
  // result is handed to on_result (resumed = true) before push returns.
  std::size_t push(Job job);
  // `job`'s problem will get more jobs (a multi-turn session's first turn): its reference work
  // is kept from this job on rather than from the second (cache/kept_reference_store.hpp).
  void expect_repeats(const Job& job);
  // Queues the measurement of `job`'s kept reference record before any job of its problem needs
  // it (exec/kept_reference_job.hpp, fill_kept_reference), claimed by a slot only when no
  // evaluation waits; the problem is expected to repeat (expect_repeats). Its index (its
  // outcome goes to on_fill), or nullopt with `why` when the job would not use kept work
  // (--keep-reference off, the CPU under auto, no baseline, KernelBench timing).
  std::optional<std::size_t> push_reference_fill(Job job, std::string& why);
  // Fills not started yet are dropped (a draining service); their indices.
  std::vector<std::size_t> cancel_reference_fills();
  // A result that needs no worker (a reply without code): reported, not journaled.
  std::size_t record(JobResult result);
  // The run's announced size, for the progress line and the report's planned_jobs (a run that
  // ends below it was interrupted). Never below the jobs pushed.
  void expect(std::size_t total);
  // No more jobs: run() returns once the pushed ones are done.
  void close();
  // A producer's failure (the agent's generation): scheduling stops, run() rethrows it.
  void fail(std::exception_ptr error);

  // The generation beside the evaluations (the agent's later turns), for the progress line.
  void note_generation(std::size_t requests_in_flight, std::int64_t tokens);

  // Runs until closed and drained (or interrupted, or failed); the report as it stands.
  RunReport run();

  [[nodiscard]] std::size_t slot_count() const;
  [[nodiscard]] std::size_t resumed_count() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kbench
