#pragma once
// A job whose worker process is started ahead of time: it starts Python and imports torch and
// triton (about 4 s on the H200 machine), then waits for its key. The slot that owns it releases
// it when the slot's current job ends, so the next evaluation starts without that cost.
#include <filesystem>
#include <future>
#include <thread>

#include "exec/controller.hpp"

namespace kbench {

class PrestartedJob {
 public:
  PrestartedJob(const Job& job, std::filesystem::path job_dir, WorkerSlot slot);
  ~PrestartedJob();  // cancels a worker never released
  PrestartedJob(const PrestartedJob&) = delete;
  PrestartedJob& operator=(const PrestartedJob&) = delete;

  // Lets the worker run the job and waits for its result (throws Interrupted when killed).
  JobResult release();
  // Kills the waiting worker; its job stays unfinished.
  void cancel();

 private:
  std::promise<bool> gate_;
  std::future<bool> gate_opened_;
  std::promise<JobResult> result_;
  std::future<JobResult> result_ready_;
  std::thread thread_;  // runs the worker (it must outlive it: PR_SET_PDEATHSIG is per thread)
};

}  // namespace kbench
