#include "exec/prestarted_job.hpp"

namespace kbench {

PrestartedJob::PrestartedJob(const Job& job, std::filesystem::path job_dir, WorkerSlot slot)
    : gate_opened_(gate_.get_future()), result_ready_(result_.get_future()) {
  thread_ = std::thread([this, job, dir = std::move(job_dir), slot = std::move(slot)] {
    try {
      result_.set_value(run_job_held(job, dir, slot, [this] { return gate_opened_.get(); }));
    } catch (...) {
      result_.set_exception(std::current_exception());
    }
  });
}

PrestartedJob::~PrestartedJob() {
  if (thread_.joinable()) cancel();
}

JobResult PrestartedJob::release() {
  gate_.set_value(true);
  thread_.join();
  return result_ready_.get();
}

void PrestartedJob::cancel() {
  gate_.set_value(false);
  thread_.join();
  try {
    result_ready_.get();
  } catch (...) {
    // Interrupted, or a failure to start: the job is simply not run.
  }
}

}  // namespace kbench
