// The process layer on its own, with /bin/sh children standing in for workers.
#include <signal.h>

#include <chrono>
#include <fstream>

#include "catch.hpp"
#include "exec/result_channel.hpp"
#include "exec/worker_process.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using kbench::test::TempDir;

namespace {
WorkerOutcome run_shell(const TempDir& dir, const std::string& script, double timeout_s = 30) {
  WorkerLaunch launch;
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
  const auto frame = encode_result_frame("{\"x\":1}");
  const auto outcome = run_shell(
      dir, "echo out; echo err >&2; printf '%s' '" + frame + "' >&3; echo \"$KBENCH_TEST_VAR\"; pwd");
  CHECK(!outcome.timed_out);
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.channel_bytes == frame);
  CHECK(outcome.stdout_text.find("out\nhello\n") == 0);
  CHECK(outcome.stdout_text.find((dir.path() / "job").string()) != std::string::npos);
  CHECK(outcome.stderr_text == "err\n");
}

TEST_CASE("printing a fake frame to stdout does not reach the channel") {
  TempDir dir;
  const auto outcome = run_shell(dir, "printf '%s' '" + encode_result_frame("{}") + "'");
  CHECK(outcome.channel_bytes.empty());
}

TEST_CASE("a worker killed by a signal is reported with the signal") {
  TempDir dir;
  const auto outcome = run_shell(dir, "kill -SEGV $$");
  CHECK(outcome.signal == SIGSEGV);
  CHECK(!outcome.timed_out);
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

TEST_CASE("the channel fd is not leaked beyond 3 and stdin is empty") {
  TempDir dir;
  const auto outcome = run_shell(dir, "ls /proc/self/fd | sort -n | tr '\\n' ' '; read x && echo got-input");
  // 0,1,2,3 plus the fd ls itself opens for /proc/self/fd.
  CHECK(outcome.stdout_text.find("0 1 2 3 ") == 0);
  CHECK(outcome.stdout_text.find("5") == std::string::npos);
  CHECK(outcome.stdout_text.find("got-input") == std::string::npos);
}
