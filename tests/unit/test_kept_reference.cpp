// Kept reference work without a worker: the key and the record through their codec, the use in
// a result, the drift decision, the store (publication, copies, tampering, who uses it), and
// run_with_kept_reference with stand-in workers (pre-started jobs, refreshes beside copies).
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <thread>

#include "cache/kept_reference_store.hpp"
#include "catch.hpp"
#include "cpu_job.hpp"
#include "exec/controller.hpp"
#include "exec/kept_reference_job.hpp"
#include "measure/baseline_drift.hpp"
#include "model/codec.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

Job sample_job(const fs::path& problem_file) {
  Job job;
  job.problem_id = "relu";
  job.problem_file = problem_file;
  job.candidate = "a.py";
  job.candidate_file = "/tmp/a.py";
  job.device = Device{DeviceKind::cuda, 0};
  job.timing = resolve_timing(TimingConfig{}, DeviceKind::cuda);
  return job;
}

const nlohmann::json kEnvironment = {{"device_name", "NVIDIA H200"}, {"torch", "2.9.0"}, {"triton", "3.5.0"},
                                     {"hostname", "node-1"}};

Measurement measurement(double median, int rounds, int per_round, double spread, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, spread);
  Measurement m;
  m.timer = "cuda_event";
  m.mode = "cold";
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < per_round; ++i) {
      m.samples_ms.push_back(median * (1 + noise(rng)));
      m.rounds.push_back(r);
    }
  return m;
}

fs::path fresh_dir(const char* name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("kbench-test-kept-{}-{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

// Catch2 v2 and v3 spell their matchers differently (the GPU machine has v3): by hand.
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <typename F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}


// The trusted worker (`--reference-baselines`: writes `files` compile artefacts holding
// `version`) and the job's worker (a short or full run whose eager sample matches the record's),
// as run_with_kept_reference sees them through run_job_held.
struct StandInWorkers {
  std::atomic<int> trusted_runs{0};
  std::atomic<int> version{1};
  int files = 1;
  bool trusted_fails = false;

  JobResult operator()(const fs::path& dir, const std::vector<std::string>& args) {
    JobResult result;
    result.status = Status::ok;
    result.wall_s = 0.5;
    result.timings["eager"] = measurement(1.0, 10, 10, 0.001, 7);
    if (!args.empty() && args.front() == "--reference-baselines") {
      ++trusted_runs;
      if (trusted_fails) {
        result.status = Status::problem_error;
        result.message = "the reference raised";
        return result;
      }
      for (int i = 0; i < files; ++i)
        write(dir / "cache" / "inductor" / fmt::format("k{:03d}", i / 20) / fmt::format("f{:03d}.so", i),
              fmt::format("version {} file {}\n", version.load(), i) + std::string(2000, 'x'));
      return result;
    }
    result.timings["candidate"] = measurement(0.5, 10, 10, 0.001, 8);
    return result;
  }
};

}  // namespace

TEST_CASE("the key names what a baseline depends on and nothing of the candidate") {
  const Job job = sample_job("relu.py");
  const auto key = kept_reference_key(job, "abc", kEnvironment);
  CHECK(key.digest.size() == 64);
  CHECK(kept_reference_key(job, "abc", kEnvironment).digest == key.digest);  // stable
  CHECK(key.fields["environment"]["device_name"] == "NVIDIA H200");
  CHECK_FALSE(key.fields["environment"].contains("hostname"));

  Job other_candidate = job;
  other_candidate.candidate = "b.py";
  other_candidate.candidate_file = "/tmp/b.py";
  other_candidate.settings.timeout_s = 10;
  CHECK(kept_reference_key(other_candidate, "abc", kEnvironment).digest == key.digest);

  Job half = job;
  half.settings.dtype = "float16";
  CHECK(kept_reference_key(half, "abc", kEnvironment).digest != key.digest);
  Job longer = job;
  longer.timing.max_time_s = 20;
  CHECK(kept_reference_key(longer, "abc", kEnvironment).digest != key.digest);
  Job bigger = job;
  bigger.size_overrides = {{"N", 4096}};
  CHECK(kept_reference_key(bigger, "abc", kEnvironment).digest != key.digest);
  CHECK(kept_reference_key(job, "abd", kEnvironment).digest != key.digest);  // the problem changed
  auto newer = kEnvironment;
  newer["torch"] = "2.10.0";
  CHECK(kept_reference_key(job, "abc", newer).digest != key.digest);
  auto other_gpu = kEnvironment;
  other_gpu["device_name"] = "NVIDIA A100";
  CHECK(kept_reference_key(job, "abc", other_gpu).digest != key.digest);
}

TEST_CASE("a record reads back as written, and one whose key does not match its fields is refused") {
  KeptReference record;
  record.key = kept_reference_key(sample_job("relu.py"), "abc", kEnvironment);
  record.created_unix_s = 1.7e9;
  record.baselines["eager"] = measurement(1.0, 5, 10, 0.01, 1);
  record.baselines["inductor"] = measurement(0.5, 5, 10, 0.01, 2);
  record.reason = "first use";
  record.uses = 3;
  const auto back = kept_reference_from_json(to_json(record), "record");
  CHECK(back.key.digest == record.key.digest);
  CHECK(back.baselines.at("eager").samples_ms == record.baselines.at("eager").samples_ms);
  CHECK(back.baselines.at("inductor").rounds == record.baselines.at("inductor").rounds);
  CHECK(back.uses == 3);
  CHECK(back.reason == "first use");

  auto forged = to_json(record);
  forged["key_fields"]["settings"]["dtype"] = "float16";
  CHECK(contains(message_of([&] { kept_reference_from_json(forged, "record"); }), "record.key"));
  auto empty = to_json(record);
  empty["baselines"] = nlohmann::json::object();
  CHECK(contains(message_of([&] { kept_reference_from_json(empty, "record"); }), "no baseline"));
}

TEST_CASE("a result's kept_reference goes through the results codec, and kept speedups are not paired") {
  JobResult result;
  result.job = sample_job("relu.py");
  result.status = Status::ok;
  result.timings["candidate"] = measurement(1.0, 5, 10, 0.01, 3);
  result.timings["eager"] = measurement(2.0, 5, 10, 0.01, 4);
  KeptReferenceUse use;
  use.kept = true;
  use.key = std::string(64, 'a');
  use.age_s = 12.5;
  use.uses = 2;
  use.drift_baseline = "eager";
  use.drift = 0.004;
  use.drift_ci = Interval{0.99, 1.01};
  use.drift_bound = 0.02;
  result.kept_reference = use;
  derive_statistics(result);
  const auto json = result_json(result);
  CHECK(json["kept_reference"]["kept"] == true);
  CHECK(json["kept_reference"]["drift_ci"][1] == 1.01);
  const JobResult back = result_from_json(json, "results[0]", result.job.device);
  REQUIRE(back.kept_reference);
  CHECK(back.kept_reference->uses == 2);
  CHECK(back.kept_reference->age_s == 12.5);
  CHECK(*back.kept_reference->drift == 0.004);
  REQUIRE(back.speedups.at("eager").ci);
  // Independent resampling: the same samples paired by round give a narrower interval.
  JobResult paired = back;
  paired.kept_reference.reset();
  derive_statistics(paired);
  const auto width = [](const Interval& ci) { return ci.high - ci.low; };
  CHECK(width(*back.speedups.at("eager").ci) >= width(*paired.speedups.at("eager").ci) * 0.999);
  CHECK(back.speedups.at("eager").value == Approx(2.0).epsilon(0.02));
}

TEST_CASE("the drift check keeps a baseline within its bound and refuses one that moved or is too noisy") {
  const auto kept = samples_by_round(measurement(1.0, 10, 10, 0.005, 10));
  const auto same = check_baseline_drift(samples_by_round(measurement(1.0, 5, 10, 0.005, 11)), kept, 0.02);
  CHECK(same.within);
  CHECK(std::abs(same.drift) < 0.01);
  CHECK(same.reason.empty());
  const auto slower = check_baseline_drift(samples_by_round(measurement(1.05, 5, 10, 0.005, 12)), kept, 0.02);
  CHECK_FALSE(slower.within);
  CHECK(slower.drift == Approx(0.05).margin(0.01));
  CHECK((contains(slower.reason, "+5.") && contains(slower.reason, "not within")));
  const auto faster = check_baseline_drift(samples_by_round(measurement(0.9, 5, 10, 0.005, 13)), kept, 0.02);
  CHECK_FALSE(faster.within);
  // A drift smaller than the bound that a noisy short sample cannot show is refused too.
  const auto noisy = check_baseline_drift(samples_by_round(measurement(1.0, 3, 5, 0.2, 14)), kept, 0.02);
  CHECK_FALSE(noisy.within);
  CHECK(short_baseline_rounds(50, 10) == 8);   // the GPU defaults: the 8-round minimum
  CHECK(short_baseline_rounds(10, 5) == 8);    // the CPU's
  CHECK(short_baseline_rounds(100, 10) == 10);  // enough for min_samples beyond that
}

TEST_CASE("the store serves repeated problems, copies verified artefacts and drops tampered ones") {
  const fs::path dir = fresh_dir("store");
  write(dir / "relu.py", "# problem\n");
  KeptReferenceStore store(dir / "kept-reference", KeepReference::automatic, 0.02, [] { return kEnvironment; });
  Job job = sample_job(dir / "relu.py");
  store.expect(job);
  CHECK(contains(store.off_reason(job), "single job"));
  store.expect(job);
  CHECK(store.off_reason(job).empty());
  Job cpu = job;
  cpu.device = Device{DeviceKind::cpu, std::nullopt};
  CHECK(contains(store.off_reason(cpu), "CPU"));
  Job none = job;
  none.settings.baselines.clear();
  CHECK(contains(store.off_reason(none), "no baseline"));

  const auto key = store.key_for(job);
  CHECK_FALSE(store.find(key));
  const fs::path trusted = store.trusted_dir(key.digest);
  CHECK(trusted.string().find((dir / "kept-reference").string()) == 0);
  write(trusted / "cache" / "inductor" / "fx" / "graph.bin", "compiled");
  write(trusted / "cache" / "triton" / "k" / "kernel.cubin", "cubin");
  KeptReference record;
  record.key = key;
  record.created_unix_s = 1;
  record.baselines["eager"] = measurement(1.0, 5, 10, 0.01, 5);
  store.publish(record, trusted);
  REQUIRE(store.find(key));
  CHECK(fs::exists(store.dir() / key.digest / "record.json"));
  CHECK(store.note_use(key.digest) == 1);
  CHECK(store.note_use(key.digest) == 2);

  const fs::path job_dir = dir / "job-0001";
  REQUIRE(store.copy_artefacts(key.digest, job_dir));
  CHECK(fs::exists(job_dir / "cache" / "inductor" / "fx" / "graph.bin"));
  CHECK(fs::exists(job_dir / "cache" / "triton" / "k" / "kernel.cubin"));
  // What a job does to its copy stays in its job dir.
  write(job_dir / "cache" / "inductor" / "fx" / "graph.bin", "poisoned");
  REQUIRE(store.find(key));
  // The store's own files changed (a candidate without Landlock): not copied, record dropped.
  write(store.dir() / key.digest / "inductor" / "fx" / "graph.bin", "poisoned");
  CHECK_FALSE(store.copy_artefacts(key.digest, dir / "job-0002"));
  CHECK_FALSE(fs::exists(dir / "job-0002" / "cache" / "inductor" / "fx" / "graph.bin"));
  std::string dropped;
  CHECK_FALSE(store.find(key, &dropped));
  CHECK(contains(dropped, "changed on disk"));
  fs::remove_all(dir);
}

// The H200 A/A run (3 copies per problem, 2 slots, pre-start 2): the job a slot claimed ahead ran
// the key's trusted measurement in its pre-start thread, before the slot's own job of that key,
// which waited for the lock; its result then read `refreshed` at uses 3 and looked like a second
// measurement. A pre-started job now waits for its release before it measures anything.
TEST_CASE("a pre-started job measures no record before its release; the job its slot runs does") {
  const fs::path dir = fresh_dir("prestart");
  write(dir / "p.py", "# problem\n");
  KeptReferenceStore store(dir / "kept-reference", KeepReference::on, 0.5, [] { return nlohmann::json::object(); });
  const Job job = test::cpu_job("p", dir / "p.py");
  for (int i = 0; i < 3; ++i) store.expect(job);
  StandInWorkers workers;

  // run_job_held's contract: a held attempt's worker waits for the release, the slot's job has no hold.
  std::promise<bool> release;
  std::shared_future<bool> released = release.get_future().share();
  std::promise<void> waiting;
  auto turn = [&] {
    waiting.set_value();
    return released.get();
  };
  auto held_attempt = [&](const fs::path& d, const std::vector<std::string>& a, bool held) {
    if (held) released.get();
    return workers(d, a);
  };
  auto attempt = [&](const fs::path& d, const std::vector<std::string>& a, bool) { return workers(d, a); };

  auto ahead = std::async(std::launch::async, [&] {
    return run_with_kept_reference(job, dir / "job-0002", store, held_attempt, {}, turn);
  });
  // Destroyed before `ahead`: a failed REQUIRE releases the job instead of waiting on it forever.
  struct ReleaseOnExit {
    std::promise<bool>& gate;
    bool done = false;
    void operator()() {
      if (!done) gate.set_value(true);
      done = true;
    }
    ~ReleaseOnExit() { (*this)(); }
  } release_ahead{release};
  REQUIRE(waiting.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(workers.trusted_runs == 0);  // nothing measured while held

  const JobResult now = run_with_kept_reference(job, dir / "job-0000", store, attempt);
  REQUIRE(now.kept_reference);
  CHECK(now.kept_reference->refreshed);
  CHECK(now.kept_reference->uses == 1);
  CHECK(now.diagnostics["kept_reference"].value("refreshed_because", "") == "first use");
  CHECK(workers.trusted_runs == 1);

  release_ahead();
  const JobResult later = ahead.get();
  REQUIRE(later.kept_reference);
  CHECK(later.kept_reference->kept);
  CHECK_FALSE(later.kept_reference->refreshed);
  CHECK(later.kept_reference->refresh_s == 0);
  CHECK(later.kept_reference->uses == 2);
  CHECK_FALSE(later.diagnostics["kept_reference"].contains("refreshed_because"));
  CHECK(workers.trusted_runs == 1);
  CHECK(fs::exists(dir / "job-0002" / "cache" / "inductor" / "k000" / "f000.so"));

  // A record there already: a pre-started job goes straight to its held worker, as before.
  std::promise<bool> unused;
  auto never = [&] { return unused.get_future().get(); };
  std::promise<bool> release_third;
  std::shared_future<bool> third_released = release_third.get_future().share();
  auto third_attempt = [&](const fs::path& d, const std::vector<std::string>& a, bool held) {
    CHECK(held);
    third_released.get();
    return workers(d, a);
  };
  auto third = std::async(std::launch::async, [&] {
    return run_with_kept_reference(job, dir / "job-0003", store, third_attempt, {}, never);
  });
  release_third.set_value(true);
  CHECK(third.get().kept_reference->uses == 3);

  // A record dropped for changed artefacts: the job that measures it again says why.
  write(store.dir() / store.key_for(job).digest / "inductor" / "k000" / "f000.so", "poisoned");
  const JobResult again = run_with_kept_reference(job, dir / "job-0004", store, attempt);
  REQUIRE(again.kept_reference);
  CHECK(again.kept_reference->refreshed);
  CHECK(again.kept_reference->fallback.empty());
  CHECK(contains(again.diagnostics["kept_reference"].value("refreshed_because", ""), "changed on disk"));
  CHECK(workers.trusted_runs == 2);

  // A failed trusted measurement: the full protocol, with both reasons.
  write(store.dir() / store.key_for(job).digest / "inductor" / "k000" / "f000.so", "poisoned again");
  workers.trusted_fails = true;
  const JobResult full = run_with_kept_reference(job, dir / "job-0006", store, attempt);
  REQUIRE(full.kept_reference);
  CHECK(contains(full.kept_reference->fallback, "the reference raised"));
  CHECK(contains(full.diagnostics["kept_reference"].value("refreshed_because", ""), "changed on disk"));
  workers.trusted_fails = false;
  CHECK(workers.trusted_runs == 3);

  // A pre-started job cancelled before its release: nothing measured, Interrupted.
  const Job other = test::cpu_job("q", dir / "p.py");
  for (int i = 0; i < 2; ++i) store.expect(other);
  CHECK_THROWS_AS(run_with_kept_reference(other, dir / "job-0005", store, held_attempt, {}, [] { return false; }),
                  Interrupted);
  CHECK(workers.trusted_runs == 3);
  fs::remove_all(dir);
}

// A drift's refresh in one slot (store.publish: the key's folder replaced) beside a job of the key
// in another that found the record and copied its artefacts outside the key's lock: the copy read
// a folder being replaced (a mix: "changed on disk" and the full protocol, or a filesystem_error
// that ended the run). Copies are made under the key's lock now.
TEST_CASE("a job's copy of the artefacts never meets a refresh of its key in another slot") {
  const fs::path dir = fresh_dir("refresh-race");
  write(dir / "p.py", "# problem\n");
  KeptReferenceStore store(dir / "kept-reference", KeepReference::on, 0.5, [] { return nlohmann::json::object(); });
  const Job job = test::cpu_job("p", dir / "p.py");
  store.expect(job);
  store.expect(job);
  StandInWorkers workers;
  workers.files = 120;
  auto attempt = [&](const fs::path& d, const std::vector<std::string>& a, bool) { return workers(d, a); };
  const auto key = store.key_for(job);

  // The other slot: records measured again and again, under the key's lock as run_full_after_drift does.
  std::atomic<bool> stop{false};
  std::atomic<int> refreshes{0};
  std::thread refresher([&] {
    while (!stop) {
      auto lock = store.lock(key.digest);
      const fs::path trusted = store.trusted_dir(key.digest);
      ++workers.version;
      JobResult measured = workers(trusted, {"--reference-baselines"});
      KeptReference record;
      record.key = key;
      record.baselines = measured.timings;
      record.reason = "drift";
      store.publish(record, trusted);
      lock.unlock();
      fs::remove_all(trusted);
      ++refreshes;
      std::this_thread::yield();
    }
  });
  int fell_back = 0;
  std::string failure;
  for (int i = 0; i < 150 && failure.empty(); ++i) {
    const fs::path job_dir = dir / fmt::format("job-{:04d}", i);
    try {
      const JobResult result = run_with_kept_reference(job, job_dir, store, attempt);
      if (!result.kept_reference || !result.kept_reference->fallback.empty()) ++fell_back;
    } catch (const std::exception& e) {
      failure = e.what();
    }
    fs::remove_all(job_dir);
  }
  stop = true;
  refresher.join();
  INFO(failure);
  CHECK(failure.empty());
  CHECK(fell_back == 0);
  CHECK(refreshes > 0);
  fs::remove_all(dir);
}
