#include "exec/controller.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "cache/bytecode_cache.hpp"
#include "cache/extension_cache.hpp"
#include "core/error.hpp"
#include "device/gpu_lock_name.hpp"
#include "model/codec.hpp"
#include "exec/background_reaper.hpp"
#include "exec/blinded_job.hpp"
#include "exec/interrupt.hpp"
#include "exec/kept_reference_job.hpp"
#include "exec/job_queue.hpp"
#include "exec/memory_ledger.hpp"
#include "exec/lock_blame.hpp"
#include "exec/lock_wait.hpp"
#include "exec/prestarted_job.hpp"
#include "exec/result_channel.hpp"
#include "exec/timing_witness.hpp"
#include "exec/witness_retry.hpp"
#include "measure/cuda_driver.hpp"

namespace kbench {

std::vector<WorkerSlot> plan_slots(const std::vector<Device>& devices, std::optional<int> jobs,
                                   int workers_per_gpu, const std::filesystem::path& lock_dir) {
  const bool gpu = devices.front().is_cuda();
  const int count = jobs ? *jobs : gpu ? int(devices.size()) * std::max(1, workers_per_gpu) : 1;
  std::vector<WorkerSlot> slots;
  for (int s = 0; s < std::max(1, count); ++s) {
    WorkerSlot slot;
    slot.device = devices[std::size_t(s) % devices.size()];
    if (gpu) slot.gpu_lock = gpu_lock_file(lock_dir, *slot.device);
    slot.slot_count = std::max(1, count);
    slots.push_back(slot);
  }
  return slots;
}

std::map<std::string, long long> device_memory(const std::vector<WorkerSlot>& slots) {
  std::map<std::string, long long> memory;
  for (const auto& slot : slots)
    if (slot.device && slot.device->is_cuda() && !memory.count(to_string(*slot.device)))
      // 95%: the driver, other processes' contexts and fragmentation need the rest.
      memory[to_string(*slot.device)] = static_cast<long long>(
          0.95 * double(cuda::total_memory_bytes(slot.device->index.value_or(0))));
  return memory;
}

namespace {

const char* signal_name(int signal) {
  const char* name = sigdescr_np(signal);
  return name ? name : "unknown signal";
}

std::map<std::string, std::string> worker_env(const Device& device,
                                              const std::filesystem::path& gpu_lock = {}) {
  std::map<std::string, std::string> env = {{"KBENCH_DEVICE", to_string(device)},
                                            {"PYTHONUNBUFFERED", "1"},
                                            {"PYTHONDONTWRITEBYTECODE", "1"}};
  // No GPU: Triton kernels run through Triton's interpreter on CPU tensors.
  if (device.is_cpu()) env["TRITON_INTERPRET"] = "1";
  // Always set, so an inherited value never puts a CPU worker on some GPU's lock.
  env["KBENCH_GPU_LOCK"] = gpu_lock.string();
  return env;
}

// Why a cache shared by every job may not be given to this one ("" when it may): without
// Landlock any job could write into it (and so into every later job), and inside the job dir it
// is the job's own.
std::string shared_cache_refusal(const SandboxOptions& sandbox, const std::filesystem::path& job_dir,
                                 const std::filesystem::path& cache_dir, const std::string& what) {
  const auto report = sandbox_report(sandbox);
  const auto inside = std::filesystem::weakly_canonical(cache_dir)
                          .lexically_relative(std::filesystem::weakly_canonical(job_dir));
  if (!report.value("filesystem_isolation", false))
    return "the shared " + what + " cache is off: no Landlock in this job's sandbox (" +
           report.value("filesystem_reason", std::string("unknown")) + "), so jobs could alter each other's " + what + " files";
  if (!inside.empty() && *inside.begin() != "..") return "the shared " + what + " cache is off: its folder is inside the job dir";
  return "";
}

// The shared extension cache a job may read, or why it may not (docs/extensions.md): only where
// Landlock keeps every other job's candidate from writing into this job's builds and into the
// cache itself.
std::optional<ExtensionCache> extension_cache_for(const SandboxOptions& sandbox,
                                                  const std::filesystem::path& job_dir, std::string& off) {
  ExtensionCache cache(ExtensionCache::default_dir(), ExtensionCache::default_max_bytes());
  off = cache.max_bytes() == 0 ? "the shared extension cache is off (KBENCH_EXTENSION_CACHE_MB=0)"
                               : shared_cache_refusal(sandbox, job_dir, cache.dir(), "extension");
  if (!off.empty()) return std::nullopt;
  return cache;
}

// The workers' bytecode cache (cache/bytecode_cache.hpp), read-only to them: filled at the first
// launch that may use it; else each worker keeps its private, empty prefix (sandbox.cpp).
void give_bytecode_cache(WorkerLaunch& launch, const std::filesystem::path& job_dir) {
  if (!BytecodeCache::enabled_by_environment()) return;
  if (!shared_cache_refusal(launch.sandbox, job_dir, BytecodeCache::default_dir(), "bytecode").empty()) return;
  const BytecodeCacheFill& cache = BytecodeCache::shared();
  if (cache.ok) launch.env["PYTHONPYCACHEPREFIX"] = std::filesystem::absolute(cache.dir).string();
}

// MAX_JOBS for the worker's extension builds: its slot's share of this process's CPUs.
int build_jobs(int slot_count) {
  cpu_set_t set;
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return std::max(1, cpus / std::max(1, slot_count));
}

double memory_limit_gb(const EvalSettings& settings) {
  return settings.memory_limit_gb.value_or(default_memory_limit_gb());
}

}  // namespace

namespace {
// Everything in a job's wall time that is neither the evaluation proper (compile and device
// work) nor waiting: process start, Python start, the torch/triton imports, result delivery.
void note_harness_overhead(JobResult& result) {
  const auto& timeline = result.diagnostics.value("worker_timeline", nlohmann::json::object());
  if (!timeline.contains("evaluate_s") || !timeline["evaluate_s"].is_number()) return;
  result.diagnostics["harness_overhead_s"] =
      std::max(0.0, result.wall_s - timeline["evaluate_s"].get<double>());
}
}  // namespace

bool needs_device_alone(const JobResult& result) {
  const auto& oom = result.diagnostics.value("out_of_memory", nlohmann::json::object());
  if (!oom.is_object() || oom.value("alone", true)) return false;
  return oom.value("memory", "") == "gpu" || oom.value("planned", false);
}

namespace {

JobResult interpret_frame(const Job& job, const WorkerOutcome& outcome) {
  JobResult result;
  result.job = job;
  result.wall_s = outcome.wall_s;
  auto attach_output = [&] {
    if (!outcome.stdout_text.empty()) result.diagnostics["stdout_tail"] = outcome.stdout_text;
    if (!outcome.stderr_text.empty()) result.diagnostics["stderr_tail"] = outcome.stderr_text;
    if (outcome.stdout_bytes || outcome.stderr_bytes) {
      result.diagnostics["output"] = {{"stdout_bytes", outcome.stdout_bytes},
                                      {"stderr_bytes", outcome.stderr_bytes},
                                      {"truncated", outcome.output_truncated}};
    }
    if (!outcome.sandbox.is_null()) result.diagnostics["sandbox"] = outcome.sandbox;
  };
  if (outcome.timed_out) {
    result.status = Status::timeout;
    result.message = fmt::format("killed after the {:g} s limit ({})", outcome.timeout_limit_s,
                                 outcome.timeout_limit);
    attach_output();
    return result;
  }
  if (outcome.memory_exceeded) {
    result.status = Status::crashed;
    result.message = fmt::format("exceeded the host memory limit ({:g} GiB, memory_limit_gb); killed",
                                 memory_limit_gb(job.settings));
    result.diagnostics["peak_memory_bytes"] = outcome.peak_memory_bytes;
    attach_output();
    return result;
  }
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (payload) {
    try {
      apply_worker_message(nlohmann::json::parse(*payload), result);
      note_harness_overhead(result);
      attach_output();
      return result;
    } catch (const std::exception& e) {
      why = fmt::format("malformed result message ({})", e.what());
    }
  }
  result.status = Status::crashed;
  result.timings.clear();
  result.diagnostics = nlohmann::json::object();
  if (outcome.signal) {
    result.message = fmt::format("worker killed by signal {} ({}); {}", outcome.signal,
                                 signal_name(outcome.signal), why);
  } else {
    result.message = fmt::format("worker exited with code {}; {}", outcome.exit_code, why);
  }
  result.diagnostics["exit_code"] = outcome.exit_code;
  result.diagnostics["signal"] = outcome.signal;
  attach_output();
  return result;
}

}  // namespace

JobResult interpret_outcome(const Job& job, const WorkerOutcome& outcome) {
  JobResult result = interpret_frame(job, outcome);
  // The host side of every job, whatever became of its worker: the watchdog's peak.
  if (!result.memory) result.memory = MemoryUsage{};
  result.memory->host_peak_rss_bytes =
      static_cast<long long>(std::max(outcome.peak_memory_bytes, outcome.peak_resident_bytes));
  return result;
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

JobResult run_job(const Job& planned, const std::filesystem::path& job_dir, const WorkerSlot& slot) {
  return run_job_held(planned, job_dir, slot, {});
}

namespace {

// A worker for `job` in `job_dir` (its job.json written there) with the job's limits, sandbox,
// environment and the slot's GPU lock: the same for evaluations and `kbench validate`. `cache`
// is the extension cache the worker was given (none: `cache_off` says why).
WorkerLaunch job_launch(const Job& job, const std::filesystem::path& job_dir, const WorkerSlot& slot,
                        std::optional<ExtensionCache>& cache, std::string& cache_off,
                        const std::shared_ptr<LockBlame>& blame = nullptr) {
  std::filesystem::create_directories(job_dir);
  const auto job_file = job_dir / "job.json";
  std::ofstream(job_file) << to_json(job).dump(2);
  WorkerLaunch launch;
  launch.args = {"worker", "--job", job_file.string()};
  launch.work_dir = job_dir;
  launch.timeout_s = job.settings.timeout_s;
  launch.compile_timeout_s = job.settings.compile_timeout_s.value_or(0);
  launch.run_timeout_s = job.settings.run_timeout_s.value_or(0);
  launch.build_timeout_s = job.settings.build_timeout_s.value_or(0);
  launch.memory_limit_bytes = std::uint64_t(memory_limit_gb(job.settings) * double(1ull << 30));
  launch.output_cap_bytes = std::size_t(job.settings.output_cap_mb * double(1 << 20));
  launch.sandbox = sandbox_options_from_environment();
  launch.sandbox.use_pid_namespace = !job.device.is_cuda();
  launch.sandbox.file_size_limit_bytes =
      std::uint64_t(job.settings.file_size_limit_gb * double(1ull << 30));
  launch.env = worker_env(job.device, slot.gpu_lock);
  give_bytecode_cache(launch, job_dir);
  cache = extension_cache_for(launch.sandbox, job_dir, cache_off);
  launch.env["KBENCH_EXTENSION_CACHE"] = cache ? std::filesystem::absolute(cache->dir()).string() : "";
  launch.env["KBENCH_EXTENSION_CACHE_OFF"] = cache_off;
  launch.env["KBENCH_BUILD_JOBS"] = std::to_string(build_jobs(slot.slot_count));
  // Created here: the sandboxed worker may not create files outside its job dir.
  if (!slot.gpu_lock.empty()) {
    std::ofstream(slot.gpu_lock, std::ios::app).close();
    std::ofstream(gpu_lock_gate_file(slot.gpu_lock), std::ios::app).close();
  }
  launch.gpu_lock = slot.gpu_lock;
  launch.holder_name = job.problem_id + "/" + job.candidate;
  if (!slot.gpu_lock.empty())
    launch.waiting = [lock = slot.gpu_lock, blame](const std::vector<pid_t>& pids) {
      const auto states = flock_states({lock, gpu_lock_gate_file(lock)});
      // Waiting at the gate (behind another worker's timing) is waiting for the lock too.
      const bool blocked = states[0].waited_by(pids) || states[1].waited_by(pids);
      if (blame) blame->poll(blocked, pids, states[0], states[1]);
      return blocked;
    };
  return launch;
}

}  // namespace

namespace {

// One run of the job's workers with their work dir `job_dir` (the grant file is the job's, in
// `grant_dir`), `worker_args` added to each worker's command line.
JobResult run_job_attempt(const Job& job, const std::filesystem::path& job_dir, const std::filesystem::path& grant_dir,
                          const WorkerSlot& slot, const std::function<bool()>& hold,
                          const std::vector<std::string>& worker_args, int witness_run = 1) {
  std::optional<ExtensionCache> cache;
  std::string cache_off;
  double start = unix_now();
  // What the job's processes waited on for the GPU lock (all of them: placed apart, three).
  const auto blame = slot.gpu_lock.empty() ? nullptr : std::make_shared<LockBlame>();
  // Holding a pre-started worker applies to the first process of the job.
  bool first_launch = true;
  const auto launch_in = [&](const std::filesystem::path& dir) {
    std::optional<ExtensionCache> other;
    WorkerLaunch launch = job_launch(job, dir, slot, dir == job_dir ? cache : other, cache_off, blame);
    // Every process of the job reads the one grant the ledger wrote in the job dir (run_jobs).
    launch.env["KBENCH_MEMORY_GRANT"] = std::filesystem::absolute(memory_grant_file(grant_dir)).string();
    if (witness_run > 1) launch.env[kWitnessRunVariable] = std::to_string(witness_run);
    if (every_candidate_placed_apart()) launch.env[kNativeIsolationVariable] = "all";
    launch.args.insert(launch.args.end(), worker_args.begin(), worker_args.end());
    if (hold && first_launch)
      launch.hold_until = [&] {
        const bool released = hold();
        start = unix_now();
        return released;
      };
    first_launch = false;
    return launch;
  };
  WorkerOutcome outcome;
  JobResult result;
  WorkerLaunch first = launch_in(job_dir);
  const std::string name = first.holder_name;
  // Native code can read and patch its whole process: the worker keeps the expected values out
  // of it (three processes, blinded_job.hpp).
  if (native_isolation_enabled()) allow_native_placement(first, job_dir);
  try {
    outcome = run_worker_process(first);
    if (outcome.interrupted) throw Interrupted{};
    const WorkerOutcome referenced = outcome;
    if (auto blinded = finish_placed_apart(job, job_dir, referenced, launch_in, outcome))
      result = std::move(*blinded);
    else
      result = interpret_outcome(job, outcome);
  } catch (const Interrupted&) {
    // A job stopped by a deadline or Ctrl-C reports nothing: say here what it cost the others.
    const double blocked = LockHolderNames::instance().take_charged(name);
    const double waited = blame ? blame->waited_s() : 0.0;
    const std::string where = LockHolderNames::instance().whereabouts(name);
    if (blocked >= 1 || waited >= 1 || !where.empty())
      std::fputs(fmt::format("kbench: stopped {} after {:.0f} s; other jobs waited {:.0f} s for the GPU lock while "
                             "it held it, it waited {:.0f} s{}{}\n",
                             name, unix_now() - start, blocked, waited, where.empty() ? "" : "; its workers: ", where)
                     .c_str(),
                 stderr);
    throw;
  }
  LockHolderNames::instance().take_charged(name);
  if (cache) {
    const auto published = publish_job_builds(*cache, job_dir, outcome.channel_bytes,
                                              result.diagnostics.value("extension_build", nlohmann::json()));
    if (!published.empty()) result.diagnostics["extension_cache"] = published;
  } else if (result.diagnostics.contains("extension_build")) {
    result.diagnostics["extension_cache"] = {{"off", cache_off}};
  }
  if (blame) {
    if (auto waited_on = blame->json(); !waited_on.is_null()) result.protocol["gpu_lock_waited_on"] = waited_on;
  }
  result.schedule = ScheduleInfo{0, job.device, start, unix_now()};
  return result;
}

// run_job_attempt, and a second run in a work dir of its own when the first's timing witness
// window was exceeded (witness_retry.hpp).
JobResult run_job_once(const Job& job, const std::filesystem::path& job_dir, const std::filesystem::path& grant_dir,
                       const WorkerSlot& slot, const std::function<bool()>& hold,
                       const std::vector<std::string>& worker_args) {
  return with_second_witness_window([&](int attempt) {
    return attempt == 0 ? run_job_attempt(job, job_dir, grant_dir, slot, hold, worker_args)
                        : run_job_attempt(job, job_dir / "witness-retry", grant_dir, slot, {}, worker_args, 2);
  });
}

// The job's result when its candidate's source decides it, from a worker in `dir` that stops
// after its source checks (`--source-verdict`: no torch, no reference); nullopt when the source
// decides nothing, or that worker failed (the job then runs as it would have).
std::optional<JobResult> source_verdict_in_worker(const Job& job, const std::filesystem::path& dir,
                                                  const std::filesystem::path& grant_dir, const WorkerSlot& slot) {
  std::optional<ExtensionCache> cache;
  std::string cache_off;
  const double start = unix_now();
  WorkerLaunch launch = job_launch(job, dir, slot, cache, cache_off);
  launch.env["KBENCH_MEMORY_GRANT"] = std::filesystem::absolute(memory_grant_file(grant_dir)).string();
  launch.args.push_back("--source-verdict");
  const WorkerOutcome outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Interrupted{};
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (!payload) return std::nullopt;
  try {
    if (nlohmann::json::parse(*payload).contains("source_undecided")) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  JobResult result = interpret_outcome(job, outcome);
  result.schedule = ScheduleInfo{0, job.device, start, unix_now()};
  return result;
}

}  // namespace

JobResult run_job_held(const Job& planned, const std::filesystem::path& job_dir,
                       const WorkerSlot& slot, const std::function<bool()>& hold) {
  Job job = planned;
  job.device = slot.device.value_or(planned.device);
  if (!slot.kept_reference) return run_job_once(job, job_dir, job_dir, slot, hold, {});
  double start = 0;
  const JobResult result = run_with_kept_reference(
      job, job_dir, *slot.kept_reference,
      [&](const std::filesystem::path& dir, const std::vector<std::string>& args, bool held) {
        JobResult attempt = run_job_once(job, dir, job_dir, slot, held ? hold : std::function<bool()>{}, args);
        if (start == 0 && attempt.schedule) start = attempt.schedule->start_unix_s;
        return attempt;
      },
      [&](const std::filesystem::path& dir) { return source_verdict_in_worker(job, dir, job_dir, slot); },
      hold);  // a pre-started job waits for its release before any trusted measurement
  JobResult out = result;
  // The job's interval spans all of its workers, the trusted one included.
  if (out.schedule && start > 0) out.schedule->start_unix_s = start;
  return out;
}

JobResult run_reference_fill(const Job& planned, const std::filesystem::path& job_dir, const WorkerSlot& slot) {
  Job job = planned;
  job.device = slot.device.value_or(planned.device);
  if (!slot.kept_reference) {
    JobResult result;
    result.job = job;
    result.status = Status::problem_error;
    result.message = "no kept reference work in this run (--keep-reference off)";
    return result;
  }
  std::filesystem::create_directories(job_dir);  // the grant file's folder
  return fill_kept_reference(job, *slot.kept_reference,
                             [&](const std::filesystem::path& dir, const std::vector<std::string>& args, bool) {
                               return run_job_once(job, dir, job_dir, slot, {}, args);
                             });
}

ProblemCheckOutcome check_problem_in_worker(const Job& job, const std::filesystem::path& job_dir,
                                            const WorkerSlot& slot, bool inductor) {
  std::optional<ExtensionCache> cache;  // problems build no extensions; the cache is not published
  std::string cache_off;
  WorkerLaunch launch = job_launch(job, job_dir, slot, cache, cache_off);
  launch.args.push_back("--validate");
  if (!inductor) launch.args.push_back("--no-inductor");
  const auto outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Interrupted{};
  ProblemCheckOutcome checked;
  checked.peak_host_memory_bytes = std::max(outcome.peak_memory_bytes, outcome.peak_resident_bytes);
  checked.wall_s = outcome.wall_s;
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (payload) {
    try {
      checked.report = problem_report_from_json(nlohmann::json::parse(*payload), "validation frame");
      return checked;
    } catch (const std::exception& e) {  // a malformed frame: say so, as the error
      checked.report.error = std::string("malformed validation frame: ") + e.what();
      return checked;
    }
  }
  // No valid frame: the reason (timeout, memory, signal) as `run` states it.
  checked.report.error = interpret_outcome(job, outcome).message;
  return checked;
}

nlohmann::json probe_environment(const Device& device, const std::filesystem::path& work_dir) {
  WorkerLaunch launch;
  launch.args = {"worker", "--probe", "--device", to_string(device)};
  launch.work_dir = work_dir / "probe";
  launch.timeout_s = 300;
  launch.env = worker_env(device);
  launch.sandbox = sandbox_options_from_environment();
  launch.sandbox.use_pid_namespace = !device.is_cuda();
  give_bytecode_cache(launch, launch.work_dir);
  const auto outcome = run_worker_process(launch);
  if (outcome.interrupted) throw Error(kExitInterrupted, "interrupted before any evaluation ran");
  std::string why;
  const auto payload = decode_result_frame(outcome.channel_bytes, outcome.channel_key, &why);
  if (!payload) {
    throw EnvironmentError(fmt::format(
        "the Python worker could not start ({}). Run scripts/setup.sh, or set KBENCH_PYTHON to "
        "a python that has torch.\n{}",
        outcome.timed_out ? "timed out" : why, outcome.stderr_text));
  }
  auto message = nlohmann::json::parse(*payload);
  if (message.contains("error"))
    throw EnvironmentError(fmt::format("the Python worker failed: {}",
                                       message["error"].get<std::string>()));
  // What the jobs of this run are isolated with (docs/sandbox.md), once for the whole run.
  message["sandbox"] = outcome.sandbox;
  return message;
}

std::size_t run_jobs(const std::vector<Job>& jobs, const ControllerOptions& options) {
  JobQueue queue;
  push_all(queue, jobs, options.skip);
  return run_jobs(queue, options);
}

std::size_t run_jobs(JobQueue& queue, const ControllerOptions& options) {
  const std::vector<WorkerSlot> slots =
      options.slots.empty() ? std::vector<WorkerSlot>{WorkerSlot{}} : options.slots;
  const auto runner = options.runner ? options.runner : run_job;
  const auto fill_runner = options.fill_runner ? options.fill_runner : run_reference_fill;
  std::mutex mutex;  // guards the fields below and serialises the callbacks
  std::size_t finished = 0;
  std::exception_ptr failure;
  std::atomic<bool> failed{false};  // `failure` set; read by the queue's wait without `mutex`
  auto stopping = [&] { return failed.load() || interrupt_requested() || (options.stop && options.stop()); };

  const std::size_t prestart_depth = options.runner ? 0 : std::size_t(std::max(0, options.prestart));
  auto job_dir = [&](std::size_t index) { return options.work_dir / fmt::format("job-{:04d}", index); };

  std::map<std::string, int> slots_per_device;
  for (const auto& slot : slots)
    if (slot.device) ++slots_per_device[to_string(*slot.device)];
  MemoryLedger ledger(options.device_memory_bytes, slots_per_device);

  // One thread per slot around the blocking run_worker_process; the fork+exec child code is
  // async-signal-safe, so forking from several threads is fine. Jobs are claimed under `mutex`,
  // so they start in push order.
  auto slot_loop = [&](int slot_index) {
    const WorkerSlot& slot = slots[std::size_t(slot_index)];
    // The next jobs' workers, already importing torch; cancelled when dropped unreleased.
    std::deque<std::pair<std::size_t, std::unique_ptr<PrestartedJob>>> ahead;
    for (;;) {
      std::size_t index = 0;
      std::unique_ptr<PrestartedJob> current;
      bool claimed = false;
      {
        std::lock_guard lock(mutex);
        if (stopping()) return;  // prestarted workers never released: cancelled
        if (!ahead.empty()) {
          index = ahead.front().first;
          current = std::move(ahead.front().second);
          ahead.pop_front();
          claimed = true;
        } else if (const auto next = queue.try_claim()) {
          index = *next;
          claimed = true;
        }
        if (claimed) {
          if (options.on_start) options.on_start(index, queue.job(index), slot_index);
          // Evaluations only: a fill starts its own trusted worker, and one claimed ahead would
          // keep a request that comes later waiting behind it.
          while (ahead.size() < prestart_depth) {
            const auto next = queue.try_claim(/*fills=*/false);
            if (!next) break;
            ahead.emplace_back(*next, std::make_unique<PrestartedJob>(queue.job(*next), job_dir(*next), slot));
          }
        }
      }
      if (!claimed) {
        // Nothing pending: wait for a push, the queue's close, or a stop.
        if (!queue.wait_for_job(stopping)) return;
        continue;
      }
      try {
        const Job& job = queue.job(index);
        const auto& run = queue.kind(index) == JobKind::reference_fill ? fill_runner : runner;
        // The ledger's key: the device's name.
        const std::string device = to_string(slot.device.value_or(job.device));
        // Admission by memory: wait for a grant beside the other workers on this GPU.
        auto grant = ledger.acquire(device, ledger.estimate(device, job.problem_id), stopping);
        if (!grant) return;  // stopping: a pre-started worker is cancelled when `current` drops
        if (ledger.bounded(device)) write_memory_grant(job_dir(index), *grant);
        JobResult result = current ? current->release() : run(job, job_dir(index), slot);
        ledger.release(*grant);
        if (ledger.bounded(device) && !grant->alone && needs_device_alone(result)) {
          // Its shared grant was too small: once more, with the whole device.
          grant = ledger.acquire(device, ledger.capacity(device), stopping);
          if (!grant) return;
          const auto alone_dir = options.work_dir / fmt::format("job-{:04d}-alone", index);
          write_memory_grant(alone_dir, *grant);
          const std::string first = result.message;
          result = run(job, alone_dir, slot);
          ledger.release(*grant);
          result.diagnostics["memory_retry"] = {{"first_attempt", first}, {"alone", true}};
        }
        // The largest of the job's processes on the device: a blinded job's judge included.
        if (const auto peak = result.memory ? result.memory->job_gpu_peak_reserved_bytes() : std::nullopt)
          ledger.learn(job.problem_id, *peak);
        if (result.schedule) result.schedule->slot = slot_index;
        std::lock_guard lock(mutex);
        ++finished;
        if (options.on_result) options.on_result(index, result);
      } catch (const Interrupted&) {
        return;
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t s = 1; s < slots.size(); ++s) threads.emplace_back(slot_loop, int(s));
  slot_loop(0);
  for (auto& t : threads) t.join();
  // Workers that delivered are still being torn down; none outlives the run.
  BackgroundReaper::instance().wait_all();
  if (failure) std::rethrow_exception(failure);
  return finished;
}

}  // namespace kbench
