// Admission by memory (exec/memory_ledger.hpp, run_jobs): grants never exceed a GPU's memory,
// large problems run alone once learned, first come first served, a shared grant that was too
// small runs again alone, a blinded job is known by its judge's peak too. Stand-in runners on
// "cuda:N" slots; no GPU is touched.
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "exec/controller.hpp"
#include "exec/memory_ledger.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

constexpr long long GiB = 1LL << 30;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

nlohmann::json read_grant(const std::filesystem::path& job_dir) {
  std::ifstream in(memory_grant_file(job_dir));
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

// Two slots on one 140 GiB GPU, jobs in `work_dir`.
ControllerOptions one_gpu_two_slots(const std::filesystem::path& work_dir) {
  ControllerOptions options;
  options.work_dir = work_dir;
  options.slots = {WorkerSlot{cuda_device(0), {}, 2}, WorkerSlot{cuda_device(0), {}, 2}};
  options.device_memory_bytes = {{"cuda:0", 140 * GiB}};
  return options;
}

// Four jobs, `large` and "small" in turn, on two slots of one 140 GiB GPU: the first `large`
// job is short (100 ms on its fair share), so its peak is known before the second one is
// admitted; the small ones take longer (400 ms). `memory_of(job)`: the memory its result reports.
// Returns each job's problem, start, end and grant, in the order they ran.
std::vector<std::tuple<std::string, double, double, nlohmann::json>> run_large_and_small(
    const std::string& large, const std::function<MemoryUsage(const Job&)>& memory_of) {
  test::TempDir dir;
  std::vector<Job> jobs(4);
  const std::string ids[] = {large, "small", large, "small"};
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].problem_id = ids[i], jobs[i].device = cuda_device(0);
  std::mutex mutex;
  std::vector<std::tuple<std::string, double, double, nlohmann::json>> ran;
  ControllerOptions options = one_gpu_two_slots(dir.path());
  options.runner = [&](const Job& job, const std::filesystem::path& job_dir, const WorkerSlot&) {
    const auto grant = read_grant(job_dir);
    const double start = now_s();
    const bool first_large = job.problem_id == large && grant["bytes"] == 70 * GiB;
    std::this_thread::sleep_for(std::chrono::milliseconds(first_large ? 100 : 400));
    JobResult r;
    r.job = job;
    r.status = Status::ok;
    r.memory = memory_of(job);
    std::lock_guard lock(mutex);
    ran.emplace_back(job.problem_id, start, now_s(), grant);
    return r;
  };
  CHECK(run_jobs(jobs, options) == 4);
  REQUIRE(ran.size() == 4);
  // The first two start together (fair shares, nothing known yet).
  CHECK(std::get<3>(ran[0])["bytes"] == 70 * GiB);
  CHECK(std::get<3>(ran[1])["bytes"] == 70 * GiB);
  return ran;
}

// Once `large` is known, one of its jobs has the whole GPU and shares it with nothing.
void check_large_alone(const std::vector<std::tuple<std::string, double, double, nlohmann::json>>& ran,
                       const std::string& large) {
  auto overlaps = [&](std::size_t a, std::size_t b) {
    return std::get<1>(ran[a]) < std::get<2>(ran[b]) && std::get<1>(ran[b]) < std::get<2>(ran[a]);
  };
  CHECK(overlaps(0, 1));
  int alone = 0;
  for (std::size_t i = 0; i < ran.size(); ++i) {
    if (std::get<3>(ran[i])["alone"] != true) continue;
    ++alone;
    CHECK(std::get<0>(ran[i]) == large);
    CHECK(std::get<3>(ran[i])["bytes"] == 140 * GiB);
    for (std::size_t j = 0; j < ran.size(); ++j)
      if (j != i) CHECK_FALSE(overlaps(i, j));
  }
  CHECK(alone == 1);
}

}  // namespace

TEST_CASE("estimates: the fair share until a problem's peak is known, then at least that") {
  MemoryLedger ledger({{"cuda:0", 140 * GiB}}, {{"cuda:0", 2}});
  CHECK(ledger.bounded("cuda:0"));
  CHECK_FALSE(ledger.bounded("cpu"));
  CHECK(ledger.estimate("cuda:0", "small") == 70 * GiB);
  ledger.learn("small", 2 * GiB);
  CHECK(ledger.estimate("cuda:0", "small") == 70 * GiB);  // never below the fair share
  ledger.learn("relu", 90 * GiB);
  CHECK(ledger.estimate("cuda:0", "relu") == 140 * GiB);  // 1.25 x 90 + 1 > 140 - 70: the whole GPU
  // Four slots: a fair share is 35 GiB; 1.25 x 60 + 1 = 76 GiB leaves room for one beside it.
  MemoryLedger four({{"cuda:0", 140 * GiB}}, {{"cuda:0", 4}});
  CHECK(four.estimate("cuda:0", "mid") == 35 * GiB);
  four.learn("mid", 60 * GiB);
  CHECK(four.estimate("cuda:0", "mid") == static_cast<long long>(1.25 * 60 * GiB) + kDeviceContextBytes);
  four.learn("mid", 100 * GiB);
  CHECK(four.estimate("cuda:0", "mid") == 140 * GiB);
}

TEST_CASE("grants never exceed the capacity; a waiting large grant is not overtaken") {
  MemoryLedger ledger({{"cuda:0", 100 * GiB}}, {{"cuda:0", 2}});
  const auto a = ledger.acquire("cuda:0", 50 * GiB, {});
  REQUIRE(a);
  std::atomic<bool> big_granted{false}, small_granted{false};
  std::thread big([&] {
    auto g = ledger.acquire("cuda:0", 100 * GiB, {});
    big_granted = true;
    CHECK(g->alone);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ledger.release(*g);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  std::thread small([&] {
    auto g = ledger.acquire("cuda:0", 10 * GiB, {});  // would fit now, but the big one waits first
    small_granted = true;
    CHECK(big_granted.load());
    ledger.release(*g);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(big_granted.load());
  CHECK_FALSE(small_granted.load());
  CHECK(ledger.held("cuda:0") == 50 * GiB);
  ledger.release(*a);
  big.join();
  small.join();
  CHECK(ledger.held("cuda:0") == 0);
}

TEST_CASE("a waiting grant gives up when told to stop, and the queue moves on") {
  MemoryLedger ledger({{"cuda:0", 100 * GiB}}, {{"cuda:0", 1}});
  const auto a = ledger.acquire("cuda:0", 80 * GiB, {});
  std::atomic<bool> stop{false};
  std::thread waiter([&] { CHECK_FALSE(ledger.acquire("cuda:0", 50 * GiB, [&] { return stop.load(); })); });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  stop = true;
  waiter.join();
  CHECK(ledger.acquire("cuda:0", 20 * GiB, {}));  // not blocked behind the one that left
}

TEST_CASE("run_jobs: a learned large problem runs alone; small ones share the GPU") {
  // "big" peaks at 100 GiB of 140.
  const auto ran = run_large_and_small("big", [](const Job& job) {
    MemoryUsage u;
    u.gpu_peak_reserved_bytes = job.problem_id == "big" ? 100 * GiB : 1 * GiB;
    return u;
  });
  check_large_alone(ran, "big");
}

TEST_CASE("run_jobs: a shared grant that ran out of GPU memory runs again alone, once") {
  test::TempDir dir;
  std::vector<Job> jobs(2);
  jobs[0].problem_id = "huge";
  jobs[1].problem_id = "other";
  for (auto& j : jobs) j.device = cuda_device(0);
  std::mutex mutex;
  std::vector<std::pair<std::string, nlohmann::json>> attempts;
  ControllerOptions options = one_gpu_two_slots(dir.path());
  options.runner = [&](const Job& job, const std::filesystem::path& job_dir, const WorkerSlot&) {
    const auto grant = read_grant(job_dir);
    {
      std::lock_guard lock(mutex);
      attempts.emplace_back(job.problem_id, grant);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    JobResult r;
    r.job = job;
    r.status = Status::ok;
    if (job.problem_id == "huge" && grant["bytes"].get<long long>() < 100 * GiB) {
      r.status = Status::problem_error;
      r.message = "out of GPU memory in the reference";
      r.diagnostics["out_of_memory"] = {{"memory", "gpu"}, {"whose", "reference"}, {"alone", false}};
    }
    return r;
  };
  std::vector<JobResult> results(2);
  options.on_result = [&](std::size_t index, const JobResult& r) { results[index] = r; };
  CHECK(run_jobs(jobs, options) == 2);
  CHECK(results[0].status == Status::ok);
  CHECK(results[0].diagnostics["memory_retry"]["first_attempt"] == "out of GPU memory in the reference");
  CHECK(results[1].status == Status::ok);
  int huge_attempts = 0;
  for (const auto& [id, grant] : attempts)
    if (id == "huge") {
      ++huge_attempts;
      if (huge_attempts == 2) CHECK(grant["alone"] == true);
    }
  CHECK(huge_attempts == 2);
  CHECK(std::filesystem::exists(dir.path() / "job-0000-alone"));
}

TEST_CASE("needs_device_alone: only a GPU shortage (or a planned one) on a shared grant") {
  JobResult r;
  CHECK_FALSE(needs_device_alone(r));
  r.diagnostics["out_of_memory"] = {{"memory", "gpu"}, {"alone", true}};
  CHECK_FALSE(needs_device_alone(r));
  r.diagnostics["out_of_memory"] = {{"memory", "gpu"}, {"alone", false}};
  CHECK(needs_device_alone(r));
  r.diagnostics["out_of_memory"] = {{"memory", "host"}, {"alone", false}};
  CHECK_FALSE(needs_device_alone(r));
  r.diagnostics["out_of_memory"] = {{"memory", "host"}, {"alone", false}, {"planned", true}};
  CHECK(needs_device_alone(r));
}

TEST_CASE("run_jobs: a blinded job's judge peak is what its problem is admitted by") {
  // "blinded" jobs: the candidate worker peaks at 1 GiB, the judge (the reference once per
  // committed call, after it, under the same grant) at 60 GiB of its 70 GiB share: known, that
  // asks for 1.25 x 60 + 1 GiB, more than a share beside another, so the second blinded job
  // gets the whole device. Learned from the candidate worker alone, it would share the GPU.
  const auto ran = run_large_and_small("blinded", [](const Job& job) {
    MemoryUsage u;
    u.gpu_peak_reserved_bytes = 1 * GiB;
    if (job.problem_id == "blinded") u.judge = JudgeMemory{true, 50 * GiB, 58 * GiB, 60 * GiB, 2 * GiB};
    return u;
  });
  check_large_alone(ran, "blinded");
}
