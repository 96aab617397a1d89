#pragma once
// Runs jobs in worker processes, one at a time per slot (several slots run side by side), and
// turns each worker's outcome into a JobResult. Nothing here needs Python: the controller only
// spawns, watches and reads.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/device_resolution.hpp"
#include "model/job.hpp"
#include "model/job_result.hpp"
#include "model/problem_report.hpp"
#include "exec/worker_process.hpp"
#include "cache/kept_reference_store.hpp"

namespace kbench {

// A worker slot: the controller runs one worker at a time in each slot, on the slot's device.
struct WorkerSlot {
  std::optional<Device> device;  // nullopt: each job's own device
  // Per-GPU lock file the worker flocks: shared while it uses the GPU, exclusive while it times
  // (docs/architecture.md#several-slots-and-the-gpu-lock). Empty: no lock (CPU).
  std::filesystem::path gpu_lock;
  int slot_count = 1;  // slots in the whole run: the worker's CPU share for extension builds
  // The run's kept reference work (exec/kept_reference_job.hpp); null: every job measures its
  // own baselines. Shared by all slots of the run.
  std::shared_ptr<KeptReferenceStore> kept_reference;
};

struct ControllerOptions {
  std::filesystem::path work_dir;  // one sub-folder per job
  std::vector<WorkerSlot> slots;   // empty: one slot on each job's own device, no lock
  std::vector<bool> skip;          // jobs already done (resume), for the vector run_jobs; empty: none
  // Each slot pre-starts the workers of its next `prestart` jobs while the current one runs, so
  // Python and the torch/triton imports are off the critical path (exec/prestarted_job.hpp).
  // Two, because the imports (about 4 s on the H200 machine) can take longer than a small
  // evaluation. 0: a process is started when its job starts. Only with the default runner.
  int prestart = 2;
  // Device -> usable memory in bytes: jobs on it are admitted by memory (exec/memory_ledger.hpp)
  // and told their grant. Devices not named (the CPU) are not bounded.
  std::map<std::string, long long> device_memory_bytes;
  // Called, one call at a time, when a job starts and when it finishes (in completion order),
  // so progress and reports can be updated as the run goes. `index` is the job's plan index.
  std::function<void(std::size_t index, const Job& job, int slot)> on_start;
  std::function<void(std::size_t index, const JobResult& result)> on_result;
  // Polled with the interrupt flag: true stops scheduling as the first Ctrl-C does (a session
  // whose producer failed). May be empty.
  std::function<bool()> stop;
  // Runs one job; default run_job. Tests replace it.
  std::function<JobResult(const Job& job, const std::filesystem::path& job_dir,
                          const WorkerSlot& slot)>
      runner;
  // Runs one reference fill (JobKind::reference_fill); default run_reference_fill.
  std::function<JobResult(const Job& job, const std::filesystem::path& job_dir,
                          const WorkerSlot& slot)>
      fill_runner;
};

// Slots for `devices`: `jobs` slots when given, else one per CUDA device x `workers_per_gpu`,
// or one on the CPU. CUDA slots are spread round-robin over the devices and get one lock file
// per device in `lock_dir`.
std::vector<WorkerSlot> plan_slots(const std::vector<Device>& devices, std::optional<int> jobs,
                                   int workers_per_gpu, const std::filesystem::path& lock_dir);

// Device -> 95% of its total memory (cuDeviceTotalMem) for the CUDA devices among `slots`: what
// the memory ledger shares out (keyed by the device's name). Empty on the CPU.
std::map<std::string, long long> device_memory(const std::vector<WorkerSlot>& slots);

// Starts a probe worker that imports torch/triton and reports versions and the device.
// Throws EnvironmentError with the worker's error when Python or torch is unusable.
nlohmann::json probe_environment(const Device& device, const std::filesystem::path& work_dir);

// Runs `job` on `slot`'s device in a worker; throws Interrupted when a second Ctrl-C killed it.
struct Interrupted {};
JobResult run_job(const Job& job, const std::filesystem::path& job_dir, const WorkerSlot& slot);

// run_job with a pre-started worker: it starts now (Python, torch, triton) and waits until
// `hold` returns: true runs the job, false cancels it (throws Interrupted). The result's
// schedule and wall time count from the release.
JobResult run_job_held(const Job& job, const std::filesystem::path& job_dir, const WorkerSlot& slot,
                       const std::function<bool()>& hold);

// A reference fill on `slot` (exec/kept_reference_job.hpp, fill_kept_reference): the trusted
// worker in the slot's store's folder, the job's grant file in `job_dir`. A slot without a store
// gives a problem_error result.
JobResult run_reference_fill(const Job& job, const std::filesystem::path& job_dir, const WorkerSlot& slot);

// `kbench validate`: the problem of `job` checked in a sandboxed worker (`kbench worker
// --validate`, lib/worker/problem_validation.py) with the job's limits. `report` is the worker's
// {"checks", "peak_memory_bytes"}, or {"error"} (also when it died: timeout, memory, signal).
struct ProblemCheckOutcome {
  ProblemReport report;
  std::uint64_t peak_host_memory_bytes = 0;  // the worker tree's peak RSS (watchdog scan)
  double wall_s = 0;
};
ProblemCheckOutcome check_problem_in_worker(const Job& job, const std::filesystem::path& job_dir,
                                            const WorkerSlot& slot, bool inductor);

// Runs every pending job of `queue`, one per slot at a time, in push order of starting, until the
// queue is closed and drained: jobs pushed while it runs (from on_result, or another thread)
// are run too. After the first interrupt no job starts and running ones finish; after the
// second, running ones are killed and not recorded. A failure (an exception from the runner or
// a callback) stops scheduling and is rethrown. Returns how many jobs finished.
class JobQueue;
std::size_t run_jobs(JobQueue& queue, const ControllerOptions& options);
// The same over a fixed plan, `options.skip` marking jobs already done.
std::size_t run_jobs(const std::vector<Job>& jobs, const ControllerOptions& options);

// The worker ran out of GPU memory (or planned it would) on a grant shared with other workers:
// the controller runs it again with the whole device (docs/memory.md#admission).
bool needs_device_alone(const JobResult& result);

// Maps a finished worker to a result (exposed for tests).
JobResult interpret_outcome(const Job& job, const WorkerOutcome& outcome);

}  // namespace kbench
