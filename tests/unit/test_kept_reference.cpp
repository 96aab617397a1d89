// Kept reference work without a worker: the key and the record through their codec, the use in
// a result, the drift decision, and the store (publication, copies, tampering, who uses it).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cache/kept_reference_store.hpp"
#include "catch.hpp"
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
