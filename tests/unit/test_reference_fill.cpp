// The reference fill without a worker (a stand-in for the trusted worker): the queue lets
// requests go first and cancels fills not started; a fill measures a key's record once, under
// the key's lock, so a job of that key waits for it instead of measuring a second one; a failing
// reference is a result, never an exception; run_jobs runs fills with their own runner, after
// the evaluations that wait. ~1 s.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "temp_dir.hpp"
#include "cache/kept_reference_store.hpp"
#include "catch.hpp"
#include "cpu_job.hpp"
#include "exec/controller.hpp"
#include "exec/interrupt.hpp"
#include "exec/job_queue.hpp"
#include "exec/kept_reference_job.hpp"

using namespace kbench;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

Measurement eager(double median_ms) {
  Measurement m;
  m.timer = "host";
  m.mode = "cold";
  for (int r = 0; r < 10; ++r)
    for (int i = 0; i < 10; ++i) {
      m.samples_ms.push_back(median_ms * (1 + 0.001 * ((r * 10 + i) % 7 - 3)));
      m.rounds.push_back(r);
    }
  return m;
}

// The trusted worker and the job's worker, as run_with_kept_reference sees them: counts each
// trusted measurement (`--reference-baselines`); `gate`, when set, holds the trusted one.
struct StandInWorkers {
  std::atomic<int> trusted_runs{0};
  std::atomic<int> job_runs{0};
  Status trusted_status = Status::ok;
  std::shared_future<void> gate;
  std::promise<void> trusted_started;
  std::once_flag started_once;

  JobResult operator()(const fs::path& dir, const std::vector<std::string>& args, bool) {
    JobResult result;
    result.status = Status::ok;
    result.wall_s = 0.5;
    const bool trusted = !args.empty() && args.front() == "--reference-baselines";
    if (trusted) {
      ++trusted_runs;
      std::call_once(started_once, [&] { trusted_started.set_value(); });
      if (gate.valid()) gate.wait();
      result.status = trusted_status;
      if (trusted_status != Status::ok) {
        result.message = "the reference raised";
        return result;
      }
      fs::create_directories(dir / "cache" / "inductor");
      std::ofstream(dir / "cache" / "inductor" / "graph.bin") << "compiled";
      result.timings["eager"] = eager(1.0);
      return result;
    }
    ++job_runs;
    result.timings["eager"] = eager(1.0);
    result.timings["candidate"] = eager(0.5);
    return result;
  }
};

}  // namespace

TEST_CASE("the queue: evaluations go before reference fills, prestarts skip fills, fills not started are cancelled") {
  JobQueue queue;
  const std::size_t fill_a = queue.push(Job{}, true, JobKind::reference_fill);
  const std::size_t fill_b = queue.push(Job{}, true, JobKind::reference_fill);
  const std::size_t request = queue.push(Job{});
  CHECK(queue.kind(fill_a) == JobKind::reference_fill);
  CHECK(queue.kind(request) == JobKind::evaluation);
  CHECK(queue.try_claim() == request);  // pushed last, claimed first
  CHECK_FALSE(queue.try_claim(/*fills=*/false).has_value());
  CHECK(queue.try_claim() == fill_a);  // fills among themselves in push order
  CHECK(queue.wait_for_job({}, 1ms));  // a fill still pending counts as work
  CHECK(queue.cancel_pending_fills() == std::vector<std::size_t>{fill_b});
  CHECK_FALSE(queue.try_claim().has_value());
  queue.close();
  CHECK_FALSE(queue.wait_for_job({}, 1ms));
}

TEST_CASE("a fill measures the record once; a job of its key that comes meanwhile waits for it") {
  const test::TempDir scratch;
  const fs::path dir = scratch.path();
  std::ofstream(dir / "p.py") << "# problem\n";
  KeptReferenceStore store(dir / "kept-reference", KeepReference::on, 0.5, [] { return nlohmann::json::object(); });
  const Job job = test::cpu_job("p", dir / "p.py", "(reference fill)");
  store.expect(job);
  store.expect(job);  // what RunSession::push_reference_fill says: the problem repeats

  StandInWorkers workers;
  std::promise<void> open_gate;
  workers.gate = open_gate.get_future().share();
  auto attempt = [&](const fs::path& d, const std::vector<std::string>& a, bool h) { return workers(d, a, h); };
  auto filled = std::async(std::launch::async, [&] { return fill_kept_reference(job, store, attempt); });
  workers.trusted_started.get_future().wait();  // the fill holds the key's lock now
  // A request of the same key while the fill measures: it must wait, not measure again.
  auto request = std::async(std::launch::async, [&] {
    return run_with_kept_reference(job, dir / "job-0001", store, attempt);
  });
  CHECK(request.wait_for(200ms) == std::future_status::timeout);
  open_gate.set_value();
  const JobResult fill = filled.get();
  const JobResult served = request.get();

  CHECK(fill.status == Status::ok);
  REQUIRE(fill.kept_reference);
  CHECK(fill.kept_reference->refreshed);
  CHECK(fill.kept_reference->refresh_s == Approx(0.5));
  CHECK(workers.trusted_runs == 1);
  REQUIRE(served.kept_reference);
  CHECK(served.kept_reference->kept);
  CHECK_FALSE(served.kept_reference->refreshed);  // no reference work in the request's time
  CHECK(served.kept_reference->refresh_s == 0);
  CHECK(served.kept_reference->key == fill.kept_reference->key);
  CHECK(fs::exists(dir / "job-0001" / "cache" / "inductor" / "graph.bin"));  // the fill's artefacts

  // A second fill of the key finds the record and starts no worker.
  const JobResult again = fill_kept_reference(job, store, attempt);
  CHECK(again.status == Status::ok);
  CHECK(again.message.find("already") != std::string::npos);
  CHECK(workers.trusted_runs == 1);
  fs::remove_all(dir);
}

TEST_CASE("a fill whose reference fails, or whose problem cannot be read, is a problem_error result") {
  const test::TempDir scratch;
  const fs::path dir = scratch.path();
  std::ofstream(dir / "p.py") << "# problem\n";
  KeptReferenceStore store(dir / "kept-reference", KeepReference::on, 0.5, [] { return nlohmann::json::object(); });
  StandInWorkers workers;
  workers.trusted_status = Status::problem_error;
  auto attempt = [&](const fs::path& d, const std::vector<std::string>& a, bool h) { return workers(d, a, h); };
  Job job = test::cpu_job("p", dir / "p.py", "(reference fill)");
  store.expect(job);
  store.expect(job);
  const JobResult failed = fill_kept_reference(job, store, attempt);
  CHECK(failed.status == Status::problem_error);
  CHECK(failed.message.find("the reference raised") != std::string::npos);
  CHECK_FALSE(store.find(store.key_for(job)));

  Job missing = test::cpu_job("gone", dir / "gone.py", "(reference fill)");
  store.expect(missing);
  store.expect(missing);
  JobResult unreadable;
  CHECK_NOTHROW(unreadable = fill_kept_reference(missing, store, attempt));
  CHECK(unreadable.status == Status::problem_error);
  CHECK(unreadable.message.find("gone.py") != std::string::npos);

  Job single = test::cpu_job("once", dir / "p.py", "(reference fill)");  // never said to repeat: the store is not for it
  store.expect(single);
  const JobResult off = fill_kept_reference(single, store, attempt);
  CHECK(off.status == Status::problem_error);
  CHECK(off.message.find("single job") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("run_jobs: fills run through their own runner, after the evaluations that wait") {
  reset_interrupts();
  JobQueue queue;
  std::mutex mutex;
  std::vector<std::string> order;
  auto record = [&](const char* kind, const Job& job) {
    std::lock_guard lock(mutex);
    order.push_back(std::string(kind) + ":" + job.problem_id);
    JobResult r;
    r.job = job;
    r.status = Status::ok;
    return r;
  };
  Job first;
  first.problem_id = "request-1";
  queue.push(first);
  for (const char* id : {"fill-a", "fill-b"}) {
    Job fill;
    fill.problem_id = id;
    queue.push(fill, true, JobKind::reference_fill);
  }
  ControllerOptions options;
  options.slots = {WorkerSlot{cpu_device(), {}}};
  options.runner = [&](const Job& job, const fs::path&, const WorkerSlot&) {
    if (job.problem_id == "request-1") {  // a request comes while the first one runs
      Job next;
      next.problem_id = "request-2";
      queue.push(next);
    }
    return record("eval", job);
  };
  options.fill_runner = [&](const Job& job, const fs::path&, const WorkerSlot&) { return record("fill", job); };
  std::thread closer([&] {
    std::this_thread::sleep_for(300ms);
    queue.close();
  });
  CHECK(run_jobs(queue, options) == 4);
  closer.join();
  CHECK(order == std::vector<std::string>{"eval:request-1", "eval:request-2", "fill:fill-a", "fill:fill-b"});
}
