// How finished workers map to statuses: the controller's side of the result channel.
#include <signal.h>

#include "catch.hpp"
#include "core/error.hpp"
#include "exec/controller.hpp"
#include "exec/result_channel.hpp"

using namespace kbench;

namespace {
Job sample_job() {
  Job job;
  job.problem_id = "p";
  job.candidate = "c.py";
  job.settings.timeout_s = 12;
  return job;
}
WorkerOutcome delivered(const nlohmann::json& message) {
  WorkerOutcome o;
  o.exit_code = 0;
  o.channel_key = "job key";
  o.channel_bytes = encode_result_frame(message.dump(), o.channel_key);
  o.stderr_text = "some warning\n";
  return o;
}
}  // namespace

TEST_CASE("a delivered ok message keeps its samples and recomputes statistics") {
  const auto result = interpret_outcome(
      sample_job(),
      delivered({{"status", "ok"},
                 {"message", ""},
                 {"diagnostics", {{"correctness", {{"seeds_checked", 3}}}}},
                 {"timings",
                  {{"candidate", {{"timer", "host_clock"}, {"samples_ms", {1.0, 3.0, 2.0}}}},
                   {"eager", {{"timer", "host_clock"}, {"samples_ms", {4.0, 4.0, 4.0}}}}}}}));
  CHECK(result.status == Status::ok);
  CHECK(result.timings.at("candidate").stats.median == 2.0);
  CHECK(*speedup_vs(result, "eager") == 2.0);
  CHECK(!speedup_vs(result, "inductor"));
  CHECK(result.diagnostics["stderr_tail"] == "some warning\n");
}

TEST_CASE("mismatch results carry no speedup") {
  const auto result = interpret_outcome(
      sample_job(), delivered({{"status", "mismatch"},
                               {"message", "seed 1000: differs"},
                               {"diagnostics", nlohmann::json::object()},
                               {"timings", nlohmann::json::object()}}));
  CHECK(result.status == Status::mismatch);
  CHECK(!speedup_vs(result, "eager"));
}

TEST_CASE("timeouts, signals, silent exits and forged messages") {
  WorkerOutcome timeout;
  timeout.timed_out = true;
  timeout.signal = SIGKILL;
  timeout.timeout_limit = "timeout_s";
  timeout.timeout_limit_s = 12;
  auto r = interpret_outcome(sample_job(), timeout);
  CHECK(r.status == Status::timeout);
  CHECK(r.message.find("12 s") != std::string::npos);
  CHECK(r.message.find("(timeout_s)") != std::string::npos);
  timeout.timeout_limit = "compile_timeout_s";
  timeout.timeout_limit_s = 3;
  r = interpret_outcome(sample_job(), timeout);
  CHECK(r.message == "killed after the 3 s limit (compile_timeout_s)");

  WorkerOutcome memory;
  memory.memory_exceeded = true;
  memory.signal = SIGKILL;
  memory.peak_memory_bytes = 3ull << 30;
  auto job = sample_job();
  job.settings.memory_limit_gb = 0.5;
  r = interpret_outcome(job, memory);
  CHECK(r.status == Status::crashed);
  CHECK(r.message.find("exceeded the host memory limit (0.5 GiB") != std::string::npos);
  CHECK(r.diagnostics["peak_memory_bytes"] == 3ull << 30);

  // A well-formed frame under another key: the candidate forged it.
  auto forged = delivered({{"status", "ok"}, {"message", ""}, {"diagnostics", nlohmann::json::object()},
                           {"timings", nlohmann::json::object()}});
  forged.channel_key = "the real key";
  r = interpret_outcome(sample_job(), forged);
  CHECK(r.status == Status::crashed);
  CHECK(r.message.find("MAC does not verify") != std::string::npos);

  WorkerOutcome segv;
  segv.signal = SIGSEGV;
  r = interpret_outcome(sample_job(), segv);
  CHECK(r.status == Status::crashed);
  CHECK(r.message.find("signal 11") != std::string::npos);

  WorkerOutcome silent;
  silent.exit_code = 0;
  r = interpret_outcome(sample_job(), silent);
  CHECK(r.status == Status::crashed);
  CHECK(r.message.find("delivered no result") != std::string::npos);

  // Negative or non-finite samples can only come from tampering.
  r = interpret_outcome(sample_job(), delivered({{"status", "ok"},
                                                 {"message", ""},
                                                 {"diagnostics", nlohmann::json::object()},
                                                 {"timings", {{"candidate", {{"timer", "t"}, {"samples_ms", {-1.0}}}}}}}));
  CHECK(r.status == Status::crashed);
  CHECK(r.timings.empty());
  CHECK(r.message.find("malformed result message") != std::string::npos);

  r = interpret_outcome(sample_job(), delivered({{"status", "great"}}));
  CHECK(r.status == Status::crashed);
}

TEST_CASE("device names are validated before any work") {
  CHECK(resolve_device("cpu") == cpu_device());
  CHECK_THROWS_AS(resolve_device("gpu"), InputError);
  CHECK_THROWS_AS(resolve_device("cuda:x"), InputError);
  const Device automatic = resolve_device("auto");
  CHECK((automatic == cpu_device() || automatic == cuda_device(0)));
}
