// The process layer on its own, with /bin/sh children standing in for workers.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "catch.hpp"
#include "process_probe.hpp"
#include "exec/background_reaper.hpp"
#include "exec/interrupt.hpp"
#include "exec/result_channel.hpp"
#include "exec/worker_process.hpp"
#include "loopback_server.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using kbench::test::process_alive_in;
using kbench::test::TempDir;

namespace {
WorkerOutcome run_shell(const TempDir& dir, const std::string& script, double timeout_s = 30,
                        WorkerLaunch launch = {}) {
  launch.executable = "/bin/sh";
  launch.args = {"-c", script};
  launch.work_dir = dir.path() / "job";
  launch.timeout_s = timeout_s;
  launch.env = {{"KBENCH_TEST_VAR", "hello"}};
  return run_worker_process(launch);
}
}  // namespace

TEST_CASE("the result arrives on fd 3, separate from stdout and stderr") {
  TempDir dir;
  const auto frame = encode_result_frame("{\"x\":1}", "k");
  const auto outcome = run_shell(
      dir, "echo out; echo err >&2; printf '%s' '" + frame + "' >&3; echo \"$KBENCH_TEST_VAR\"; pwd");
  CHECK(!outcome.timed_out);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.channel_bytes == frame);
  CHECK(outcome.stdout_text.find("out\nhello\n") == 0);
  CHECK(outcome.stdout_text.find((dir.path() / "job").string()) != std::string::npos);
  CHECK(outcome.stderr_text == "err\n");
}

TEST_CASE("the timing witness: seeds on fd 5 when asked, the window on the controller's clock") {
  TempDir dir;
  const std::string digest(64, 'a');
  const auto script = "printf '%s' '" + encode_phase_line(kWitnessReadyPhase) + "' >&3; read -r seeds <&5; " +
                      "echo \"seeds=$seeds\"; sleep 0.3; printf '%s' '" +
                      encode_phase_line(std::string(kWitnessEndPrefix) + digest) + "' >&3; printf '%s' '" +
                      encode_result_frame("{}", "k") + "' >&3";
  WorkerLaunch launch;
  launch.channel_key = "k";
  launch.witness_seeds = "11 22 33";
  const auto outcome = run_shell(dir, script, 30, launch);
  CHECK(outcome.stdout_text.find("seeds=11 22 33\n") == 0);
  REQUIRE(outcome.witness);
  CHECK(outcome.witness->digest == digest);
  CHECK(outcome.witness->wall_s >= 0.3);
  CHECK(outcome.witness->wall_s < 5);
  CHECK(outcome.reveals.empty());
  // With reveals (an isolated candidate): fd 5 stays open after the seeds, the reveals answered
  // inside the window are marked as the witness's groups, and so is the window's end, answered
  // with the last group's seed.
  const std::string group(64, 'b'), after(64, 'c');
  const auto reveal = [](const std::string& d) { return encode_phase_line(std::string(kRevealPrefix) + d); };
  const auto grouped = "printf '%s' '" + encode_phase_line(kWitnessReadyPhase) + "' >&3; read -r seeds <&5; " +
                       "printf '%s' '" + reveal(group) + "' >&3; read -r one <&5; echo \"one=$one\"; " +
                       "printf '%s' '" + encode_phase_line(std::string(kWitnessEndPrefix) + digest) + "' >&3; " +
                       "read -r end <&5; echo \"end=$end\"; " +
                       "printf '%s' '" + reveal(after) + "' >&3; read -r two <&5; echo \"two=$two\"; " +
                       "printf '%s' '" + encode_result_frame("{}", "k") + "' >&3";
  launch.reveal_calls = true;
  const auto streamed = run_shell(dir, grouped, 30, launch);
  REQUIRE(streamed.witness);
  // The group's reveal, the window's end (answered with the last group's seed), one after it.
  REQUIRE(streamed.reveals.size() == 3);
  CHECK(streamed.reveals[0].digest == group);
  CHECK(streamed.reveals[0].witness);
  CHECK(streamed.reveals[1].digest == digest);
  CHECK(streamed.reveals[1].witness);
  CHECK(streamed.reveals[2].digest == after);
  CHECK_FALSE(streamed.reveals[2].witness);
  CHECK(streamed.stdout_text.find("one=" + std::to_string(streamed.reveals[0].seed) + "\n") != std::string::npos);
  CHECK(streamed.stdout_text.find("end=" + std::to_string(streamed.reveals[1].seed) + "\n") != std::string::npos);
  CHECK(streamed.stdout_text.find("two=" + std::to_string(streamed.reveals[2].seed) + "\n") != std::string::npos);
  // No seeds for the job: fd 5 is at EOF, and no window is recorded.
  const auto none = run_shell(dir, "if read -r seeds <&5; then echo got; else echo eof; fi", 30);
  CHECK(none.stdout_text == "eof\n");
  CHECK(!none.witness);
}

TEST_CASE("the job ends when an authenticated frame arrives; the worker is reaped in the background") {
  TempDir dir;
  WorkerLaunch launch;
  launch.channel_key = "test-key";
  const auto frame = encode_result_frame("{\"x\":1}", launch.channel_key);
  const auto start = std::chrono::steady_clock::now();
  // Like a worker whose exit takes long (a CUDA context to tear down), with a child of its own.
  const auto outcome = run_shell(
      dir, "echo before; printf '%s' '" + frame + "' >&3; (sleep 60) & sleep 60", 120, launch);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(outcome.delivered);
  CHECK(!outcome.timed_out);
  CHECK(elapsed < 10);
  CHECK(outcome.wall_s < 10);
  CHECK(outcome.channel_bytes == frame);
  CHECK(outcome.stdout_text == "before\n");
  BackgroundReaper::instance().wait_all();
  CHECK(!process_alive_in(dir.path() / "job"));
}

TEST_CASE("the reaper joins its ended threads: a long-lived controller holds none per past worker") {
  // `kbench serve` delivers thousands of workers; each reaping thread left unjoined kept its
  // stack resident (the soak's RSS grew ~20 KiB per request with the results capped).
  TempDir dir;
  WorkerLaunch launch;
  launch.channel_key = "reap-key";
  const auto frame = encode_result_frame("{}", launch.channel_key);
  for (int i = 0; i < 12; ++i) {
    CHECK(run_shell(dir, "printf '%s' '" + frame + "' >&3; sleep 60", 30, launch).delivered);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its SIGKILLed shell is reaped
  }
  // The last one (and any that had not ended when it was handed over) may still be held.
  CHECK(BackgroundReaper::instance().held() <= 3);
  BackgroundReaper::instance().wait_all();
  CHECK(BackgroundReaper::instance().held() == 0);
}

TEST_CASE("a frame under another key does not end the job") {
  TempDir dir;
  WorkerLaunch launch;
  launch.channel_key = "test-key";
  const auto outcome = run_shell(
      dir, "printf '%s' '" + encode_result_frame("{}", "forged") + "' >&3; sleep 1; echo after",
      30, launch);
  CHECK(!outcome.delivered);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.stdout_text == "after\n");
}

TEST_CASE("printing a fake frame to stdout does not reach the channel") {
  TempDir dir;
  const auto outcome = run_shell(dir, "printf '%s' '" + encode_result_frame("{}", "k") + "'");
  CHECK(outcome.channel_bytes.empty());
}

TEST_CASE("a worker killed by a signal is reported with the signal") {
  TempDir dir;
  const auto outcome = run_shell(dir, "kill -SEGV $$");
  CHECK(outcome.signal == SIGSEGV);
  CHECK(!outcome.timed_out);
}

TEST_CASE("a worker that dies without a result after the stop signal is interrupted, not crashed") {
  // Slurm's scancel signals every process of the job: the worker dies of the SIGTERM that
  // asked kbench to stop. That job did not finish; --resume must run it again.
  TempDir dir;
  request_interrupt();
  const auto outcome = run_shell(dir, "kill -TERM $$");
  reset_interrupts();
  CHECK(outcome.interrupted);
  CHECK(outcome.signal == SIGTERM);
  // Without a stop request the same death is the worker's own: reported (as crashed, upstream).
  CHECK(!run_shell(dir, "kill -TERM $$").interrupted);
}

TEST_CASE("a hung worker and everything it started are killed at the deadline") {
  TempDir dir;
  const auto marker = dir.path() / "grandchild-alive";
  const auto start = std::chrono::steady_clock::now();
  const auto outcome =
      run_shell(dir, "(sleep 3; touch " + marker.string() + ") & sleep 100", 1.0);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(outcome.timed_out);
  CHECK(elapsed < 5);
  CHECK(outcome.signal == SIGKILL);
  // The background grandchild was in the same process group and died with it.
  sleep(4);
  CHECK(!std::filesystem::exists(marker));
}

TEST_CASE("captured output is capped to its tail") {
  TempDir dir;
  const auto outcome = run_shell(dir, "i=0; while [ $i -lt 2000 ]; do echo line-$i-xxxxxxxxxxxxxxxxxxxx; i=$((i+1)); done");
  CHECK(outcome.stdout_text.size() < 9000);
  CHECK(outcome.stdout_text.find("bytes cut") != std::string::npos);
  CHECK(outcome.stdout_text.find("line-1999-") != std::string::npos);
}

TEST_CASE("no fd is leaked beyond the channels (3, 4, 5) and stdin is empty") {
  TempDir dir;
  const auto outcome = run_shell(dir, "ls /proc/self/fd | sort -n | tr '\\n' ' '; read x && echo got-input");
  // 0,1,2,3 (result), 4 (key), 5 (witness seeds), plus the fd ls itself opens for /proc/self/fd.
  CHECK(outcome.stdout_text.find("0 1 2 3 4 5 ") == 0);
  CHECK(outcome.stdout_text.find("7") == std::string::npos);
  CHECK(outcome.stdout_text.find("got-input") == std::string::npos);
}

namespace {
std::string fmt_hex(unsigned char c) {
  static const char kDigits[] = "0123456789abcdef";
  return {kDigits[c >> 4], kDigits[c & 15]};
}
std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("the worker gets its key on fd 4 and nothing of the controller's environment") {
  TempDir dir;
  setenv("OPENAI_API_KEY", "sk-secret-test-value", 1);
  setenv("KBENCH_API_KEY", "kb-secret-test-value", 1);
  const auto outcome = run_shell(dir, "head -c 32 <&4 | od -An -tx1 | tr -d ' \\n'; echo; env");
  unsetenv("OPENAI_API_KEY");
  unsetenv("KBENCH_API_KEY");
  std::string key_hex;
  for (unsigned char c : outcome.channel_key) key_hex += fmt_hex(c);
  CHECK(outcome.stdout_text.find(key_hex + "\n") == 0);
  CHECK(outcome.stdout_text.find("secret-test-value") == std::string::npos);
  CHECK(outcome.stdout_text.find("KBENCH_TEST_VAR=hello") != std::string::npos);
  CHECK(outcome.stdout_text.find("HOME=" + (dir.path() / "job" / "home").string()) != std::string::npos);
  CHECK(outcome.stdout_text.find("TMPDIR=" + (dir.path() / "job" / "tmp").string()) != std::string::npos);
  CHECK(outcome.stdout_text.find("TRITON_CACHE_DIR=" + (dir.path() / "job").string()) != std::string::npos);
  CHECK(outcome.stdout_text.find("PATH=") != std::string::npos);
}

TEST_CASE("a flood of output keeps only the head and the tail, and the worker is not blocked") {
  TempDir dir;
  WorkerLaunch launch;
  launch.output_cap_bytes = 64 << 10;
  const auto outcome = run_shell(
      dir, "echo first-line; head -c 20000000 /dev/zero | tr '\\0' x; echo; echo last-line", 30, launch);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.stdout_bytes > 20000000);
  CHECK(outcome.output_truncated);
  const auto log = slurp(dir.path() / "job" / "stdout.log");
  CHECK(log.size() < (64 << 10) + 100);
  CHECK(log.rfind("first-line\n", 0) == 0);
  CHECK(log.find("bytes cut ...]") != std::string::npos);
  CHECK(log.substr(log.size() - 10) == "last-line\n");
  CHECK(outcome.stdout_text.size() < 8300);
  CHECK(outcome.stdout_text.find("last-line") != std::string::npos);
}

TEST_CASE("the compile and run limits each fire and are named") {
  TempDir dir;
  WorkerLaunch launch;
  launch.compile_timeout_s = 1;
  launch.run_timeout_s = 1.5;
  // Never announces the run phase: the compile limit fires.
  auto outcome = run_shell(dir, "sleep 30", 30, launch);
  CHECK(outcome.timed_out);
  CHECK(outcome.timeout_limit == "compile_timeout_s");
  // Announces it at once, then hangs: the run limit fires, counted from the announcement.
  const auto start = std::chrono::steady_clock::now();
  outcome = run_shell(dir, "printf 'KBENCH-PHASE/1 run\\n' >&3; sleep 30", 30, launch);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(outcome.timed_out);
  CHECK(outcome.timeout_limit == "run_timeout_s");
  CHECK(outcome.timeout_limit_s == 1.5);
  CHECK(elapsed > 1.4);
  CHECK(elapsed < 6);
  // The overall limit still caps everything.
  launch.compile_timeout_s = 0;
  outcome = run_shell(dir, "sleep 30", 1, launch);
  CHECK(outcome.timeout_limit == "timeout_s");
}

TEST_CASE("an extension build has its own limit and does not use up the compile limit") {
  TempDir dir;
  WorkerLaunch launch;
  launch.compile_timeout_s = 1.8;
  launch.build_timeout_s = 1;
  // A build that hangs: the build limit fires, not the compile limit.
  auto outcome = run_shell(dir, "printf 'KBENCH-PHASE/1 build\\n' >&3; sleep 30", 30, launch);
  CHECK(outcome.timed_out);
  CHECK(outcome.timeout_limit == "build_timeout_s");
  CHECK(outcome.timeout_limit_s == 1);
  // Two builds of 1 s each (2.8 s in all, over the 1.8 s compile limit) and a short compile
  // phase: the build time is not counted against compile_timeout_s.
  launch.build_timeout_s = 5;
  outcome = run_shell(dir,
                      "sleep 0.4; for i in 1 2; do printf 'KBENCH-PHASE/1 build\\n' >&3; sleep 1; "
                      "printf 'KBENCH-PHASE/1 build-end\\n' >&3; done; sleep 0.4; exit 0",
                      30, launch);
  CHECK(!outcome.timed_out);
  CHECK(outcome.exit_code == 0);
  // Without a build line the same wall time trips the compile limit.
  outcome = run_shell(dir, "sleep 2.8; exit 0", 30, launch);
  CHECK(outcome.timed_out);
  CHECK(outcome.timeout_limit == "compile_timeout_s");
}

TEST_CASE("a worker above the host-memory limit is killed") {
  TempDir dir;
  WorkerLaunch launch;
  launch.memory_limit_bytes = 200ull << 20;
  // A child process holds the memory: the whole tree counts.
  const auto outcome = run_shell(
      dir, "python3 -c 'import time; b = bytearray(600 << 20); time.sleep(30)'; sleep 30", 60, launch);
  CHECK(outcome.memory_exceeded);
  CHECK(!outcome.timed_out);
  CHECK(outcome.peak_memory_bytes > (200ull << 20));
  CHECK(outcome.wall_s < 20);
}

TEST_CASE("descendants that leave the process group die with the job, with or without namespaces") {
  for (const bool namespaces : {true, false}) {
    TempDir dir;
    WorkerLaunch launch;
    launch.sandbox.use_namespaces = namespaces;
    const auto outcome =
        run_shell(dir, "setsid sleep 100 & (setsid sh -c 'sleep 100 & sleep 100' &) ; sleep 1; exit 0", 30, launch);
    INFO("namespaces " << namespaces);
    CHECK(outcome.exit_code == 0);
    CHECK(!process_alive_in(dir.path()));
  }
}

TEST_CASE("where the kernel allows it: no network, no writes outside the job dir, parent out of reach") {
  const auto& support = sandbox_support();
  TempDir dir;
  const auto outside = dir.path() / "outside-file";
  // A TCP server on the loopback that the worker tries to reach.
  const test::LoopbackServer server;
  const std::string port = std::to_string(server.port());
  const auto outcome = run_shell(
      dir, "touch " + outside.string() + " && echo wrote-outside; touch inside && echo wrote-inside; "
           "kill -9 $PPID && echo killed-parent; "
           "bash -c 'echo hi > /dev/tcp/127.0.0.1/" + port + "' 2>/dev/null && echo connected; echo done");
  const bool connected = server.was_connected();
  CHECK(outcome.stdout_text.find("done") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path() / "job" / "inside"));
  if (support.landlock_abi > 0) {
    CHECK(!std::filesystem::exists(outside));
    CHECK(outcome.sandbox["filesystem_isolation"] == true);
  } else {
    CHECK(outcome.sandbox["filesystem_isolation"] == false);
    CHECK(!outcome.sandbox["filesystem_reason"].get<std::string>().empty());
  }
  if (support.namespaces) {
    CHECK(outcome.sandbox["network_isolation"] == true);
    CHECK(outcome.stdout_text.find("connected") == std::string::npos);
    CHECK(!connected);
  } else {
    CHECK(outcome.sandbox["network_isolation"] == false);
    CHECK(!outcome.sandbox["network_reason"].get<std::string>().empty());
  }
  // We are the "controller" here: still alive, and so is this test.
  CHECK(outcome.exit_code == 0);
}
