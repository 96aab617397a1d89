// The controller's scheduling (run_jobs) with a stand-in runner: slots run side by side, jobs
// start in plan order, done jobs are skipped, and an interrupt stops scheduling.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <map>
#include <set>
#include <thread>

#include "catch.hpp"
#include "exec/controller.hpp"
#include "exec/interrupt.hpp"
#include "exec/job_queue.hpp"
#include "exec/lock_wait.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

std::vector<Job> make_jobs(int n) {
  std::vector<Job> jobs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    jobs[std::size_t(i)].problem_id = "p" + std::to_string(i);
    jobs[std::size_t(i)].device = cpu_device();
  }
  return jobs;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A runner that takes `seconds` and records its interval.
struct FakeRunner {
  double seconds;
  std::mutex mutex;
  std::map<std::string, std::pair<double, double>> intervals;
  std::map<std::string, std::string> device_of;
  JobResult operator()(const Job& job, const std::filesystem::path&, const WorkerSlot& slot) {
    const double start = now_s();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    JobResult r;
    r.job = job;
    r.status = Status::ok;
    r.schedule = ScheduleInfo{};
    std::lock_guard lock(mutex);
    intervals[job.problem_id] = {start, now_s()};
    device_of[job.problem_id] = slot.device ? to_string(*slot.device) : "";
    return r;
  }
};

}  // namespace

TEST_CASE("two slots run jobs side by side; each result reports its slot") {
  reset_interrupts();
  const auto jobs = make_jobs(4);
  FakeRunner fake{0.3};
  ControllerOptions options;
  options.slots = {{cpu_device(), {}}, {cpu_device(), {}}};
  options.runner = [&](const Job& j, const std::filesystem::path& d, const WorkerSlot& s) { return fake(j, d, s); };
  std::vector<std::size_t> started, finished;
  std::set<int> slots_seen;
  options.on_start = [&](std::size_t index, const Job&, int) { started.push_back(index); };
  options.on_result = [&](std::size_t index, const JobResult& r) {
    finished.push_back(index);
    slots_seen.insert(r.schedule->slot);
  };
  const double begin = now_s();
  CHECK(run_jobs(jobs, options) == 4);
  const double wall = now_s() - begin;
  CHECK(started == std::vector<std::size_t>{0, 1, 2, 3});  // started in plan order
  CHECK(finished.size() == 4);
  CHECK(slots_seen == std::set<int>{0, 1});
  // Jobs 0 and 1 overlapped; the whole run took about two jobs' time, not four.
  const auto a = fake.intervals.at("p0"), b = fake.intervals.at("p1");
  CHECK(std::max(a.first, b.first) < std::min(a.second, b.second));
  CHECK(wall < 1.0);
}

TEST_CASE("several GPUs: slots are spread round-robin and each GPU has one lock file") {
  const auto slots = plan_slots({cuda_device(0), cuda_device(1)}, std::nullopt, 2, "/tmp/locks");
  REQUIRE(slots.size() == 4);
  CHECK(slots[0].device == cuda_device(0));
  CHECK(slots[1].device == cuda_device(1));
  CHECK(slots[2].device == cuda_device(0));
  CHECK(slots[0].gpu_lock == slots[2].gpu_lock);
  CHECK(slots[0].gpu_lock != slots[1].gpu_lock);
  CHECK(slots[0].gpu_lock.parent_path() == "/tmp/locks");
  CHECK(plan_slots({cuda_device(1)}, 3, 2, "/tmp").size() == 3);
  const auto cpu = plan_slots({cpu_device()}, std::nullopt, 2, "/tmp");
  REQUIRE(cpu.size() == 1);  // CPU timing is perturbed by concurrency: one slot unless asked
  CHECK(cpu[0].gpu_lock.empty());
  CHECK(plan_slots({cpu_device()}, 2, 2, "/tmp").size() == 2);
}

TEST_CASE("jobs marked done are skipped") {
  reset_interrupts();
  const auto jobs = make_jobs(5);
  FakeRunner fake{0.01};
  ControllerOptions options;
  options.skip = {true, false, true, true, false};
  options.runner = [&](const Job& j, const std::filesystem::path& d, const WorkerSlot& s) { return fake(j, d, s); };
  std::vector<std::size_t> finished;
  options.on_result = [&](std::size_t index, const JobResult&) { finished.push_back(index); };
  CHECK(run_jobs(jobs, options) == 2);
  CHECK(finished == std::vector<std::size_t>{1, 4});
}

TEST_CASE("after an interrupt no job starts; running ones finish and are recorded") {
  reset_interrupts();
  const auto jobs = make_jobs(6);
  ControllerOptions options;
  options.slots = {{cpu_device(), {}}, {cpu_device(), {}}};
  std::atomic<bool> second_started{false};
  options.on_start = [&](std::size_t index, const Job&, int) {
    if (index == 1) second_started = true;
  };
  options.runner = [&](const Job& job, const std::filesystem::path&, const WorkerSlot&) {
    if (job.problem_id == "p0") {  // Ctrl-C while jobs 0 and 1 run
      while (!second_started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      request_interrupt();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    JobResult r;
    r.job = job;
    r.status = Status::ok;
    return r;
  };
  std::vector<std::size_t> finished;
  options.on_result = [&](std::size_t index, const JobResult&) { finished.push_back(index); };
  CHECK(run_jobs(jobs, options) == 2);
  std::sort(finished.begin(), finished.end());
  CHECK(finished == std::vector<std::size_t>{0, 1});
  reset_interrupts();
}

TEST_CASE("a runner's failure ends the run and is rethrown") {
  reset_interrupts();
  const auto jobs = make_jobs(3);
  ControllerOptions options;
  options.runner = [&](const Job& job, const std::filesystem::path&, const WorkerSlot&) -> JobResult {
    if (job.problem_id == "p1") throw std::runtime_error("fork failed");
    JobResult r;
    r.job = job;
    return r;
  };
  std::size_t results = 0;
  options.on_result = [&](std::size_t, const JobResult&) { ++results; };
  CHECK_THROWS_AS(run_jobs(jobs, options), std::runtime_error);
  CHECK(results == 1);
}

TEST_CASE("a process blocked in flock on the GPU lock is seen as waiting; the holder is not") {
  test::TempDir dir;
  const auto lock = dir.write("gpu.lock", "");
  auto child_locking = [&](int seconds) {
    const pid_t pid = fork();
    if (pid == 0) {
      const int fd = open(lock.c_str(), O_RDONLY);
      flock(fd, LOCK_EX);
      sleep(unsigned(seconds));
      _exit(0);
    }
    return pid;
  };
  const pid_t holder = child_locking(3);
  usleep(300000);
  const pid_t waiter = child_locking(0);
  bool seen = false;
  for (int i = 0; i < 20 && !(seen = flock_states({lock})[0].waited_by({waiter})); ++i) usleep(100000);
  CHECK(seen);
  CHECK_FALSE(flock_states({lock})[0].waited_by({holder}));
  CHECK_FALSE(flock_states({dir.path() / "other.lock"})[0].waited_by({waiter}));
  int status = 0;
  waitpid(holder, &status, 0);
  waitpid(waiter, &status, 0);
  CHECK_FALSE(flock_states({lock})[0].waited_by({waiter}));
}

TEST_CASE("a queue that grows while it runs: jobs pushed from on_result and from another thread all run, then close ends it") {
  reset_interrupts();
  FakeRunner fake{0.02};
  JobQueue queue;
  const auto first = make_jobs(2);
  for (const auto& job : first) queue.push(job);
  ControllerOptions options;
  options.slots = {{cpu_device(), {}}, {cpu_device(), {}}};
  options.runner = [&](const Job& j, const std::filesystem::path& d, const WorkerSlot& s) { return fake(j, d, s); };
  std::vector<std::size_t> finished;
  std::size_t pushed_from_results = 0;
  // The agent's pattern: each of the first four results pushes one more job.
  options.on_result = [&](std::size_t index, const JobResult&) {
    finished.push_back(index);
    if (pushed_from_results < 4) {
      Job job;
      job.problem_id = "from-result-" + std::to_string(pushed_from_results++);
      job.device = cpu_device();
      queue.push(job);
    }
  };
  // The service's pattern: another thread pushes while the slots wait, then closes.
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the slots are idle by now
    Job job;
    job.problem_id = "from-thread";
    job.device = cpu_device();
    queue.push(job);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    queue.close();
  });
  CHECK(run_jobs(queue, options) == 7);
  producer.join();
  std::sort(finished.begin(), finished.end());
  CHECK(finished == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6});
  CHECK(fake.intervals.count("from-thread") == 1);
  CHECK(fake.intervals.count("from-result-3") == 1);
  CHECK_THROWS_AS(queue.push(first[0]), std::logic_error);  // closed
}

TEST_CASE("an open queue with nothing pending: an interrupt or the stop hook ends the wait") {
  reset_interrupts();
  JobQueue queue;
  ControllerOptions options;
  options.runner = [](const Job& job, const std::filesystem::path&, const WorkerSlot&) {
    JobResult r;
    r.job = job;
    return r;
  };
  std::atomic<bool> stop{false};
  options.stop = [&] { return stop.load(); };
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  const double begin = now_s();
  CHECK(run_jobs(queue, options) == 0);
  CHECK(now_s() - begin < 2.0);
  stopper.join();
}
