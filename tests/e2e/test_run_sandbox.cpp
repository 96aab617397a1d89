// End to end: candidates that attack the sandbox (tests/data/suites/sandbox.yaml) are recorded
// with a reason or neutralised, nothing they start survives, and the next job runs fine.
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "process_probe.hpp"
#include "exec/sandbox.hpp"
#include "loopback_server.hpp"
#include "results_by_key.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;
using kbench::test::process_alive_in;

namespace {

const std::string kOpenAiSecret = "sk-kbench-e2e-secret-" + std::to_string(getpid());
const std::string kKbenchSecret = "kb-kbench-e2e-secret-" + std::to_string(getpid());

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}


// kbench run with the secrets in its own environment only (this test process never holds them).
int run_kbench_with_secrets(const std::vector<std::string>& arguments, const std::filesystem::path& log) {
  std::vector<std::string> env = {"OPENAI_API_KEY=" + kOpenAiSecret, "KBENCH_API_KEY=" + kKbenchSecret};
  for (const char* name : {"PATH", "HOME", "KBENCH_PYTHON", "LD_LIBRARY_PATH", "LANG"})
    if (const char* value = getenv(name)) env.push_back(std::string(name) + "=" + value);
  std::vector<std::string> args = {test::kKbench.string()};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  for (auto& e : env) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(log.c_str(), "w", stdout);
    dup2(fileno(stdout), 2);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("sandbox attacks are recorded or neutralised and the run goes on") {
  const auto& support = sandbox_support();
  test::TempDir dir;
  const auto work = dir.path() / "work";
  const auto results = dir.path() / "sandbox.json";
  std::filesystem::create_directories(work);

  // The TCP server connect_socket.py tries to reach.
  const test::LoopbackServer server;
  std::ofstream(work / "tcp_port") << server.port();

  // Where write_outside.py tries to write.
  const std::vector<std::filesystem::path> escapes = {
      test::kSourceDir / "tests/hostile/kbench_escaped_write.txt",
      std::filesystem::path(getpwuid(getuid())->pw_dir) / "kbench_escaped_write.txt",
      "/tmp/kbench_escaped_write.txt"};
  for (const auto& file : escapes) std::filesystem::remove(file);

  const auto log = dir.path() / "kbench.log";
  const int exit_code = run_kbench_with_secrets(
      {"run", (test::kDataDir / "suites/sandbox.yaml").string(), "--device", "cpu", "-o",
       results.string(), "--work-dir", work.string()},
      log);
  const bool connected = server.was_connected();
  INFO(slurp(log));
  REQUIRE(exit_code == 0);
  const auto text = slurp(results);
  const auto json = nlohmann::json::parse(text);
  REQUIRE(json["results"].size() == 13);
  CHECK(json["complete"] == true);

  const auto by = test::results_by_key(json["results"]);
  auto status = [&](const std::string& key) { return by.at(key)["status"].get<std::string>(); };
  auto message = [&](const std::string& key) { return by.at(key)["message"].get<std::string>(); };
  auto stdout_tail = [&](const std::string& key) {
    return by.at(key)["diagnostics"].value("stdout_tail", std::string());
  };

  // Every result says what isolation it ran with, and so does the environment.
  for (const auto& r : json["results"]) {
    INFO(r["candidate"]);
    CHECK(r["diagnostics"]["sandbox"]["network_isolation"] == support.namespaces);
    CHECK(r["diagnostics"]["sandbox"]["filesystem_isolation"] == (support.landlock_abi > 0));
  }
  CHECK(json["environment"]["sandbox"]["network_isolation"] == support.namespaces);

  // 100 MB of stdout: kept to 64 KiB, counted, and the job still finished.
  CHECK(status("add_one/flood_stdout.py") == "ok");
  const auto& flood = by.at("add_one/flood_stdout.py")["diagnostics"]["output"];
  CHECK(flood["stdout_bytes"].get<std::uint64_t>() >= 100u << 20);
  CHECK(flood["truncated"] == true);
  CHECK(stdout_tail("add_one/flood_stdout.py").find("flood-end") != std::string::npos);

  // fds 0-2 and the result channel overwritten: the worker cannot deliver, a recorded crash.
  CHECK(status("add_one/clobber_fds.py") == "crashed");
  CHECK(message("add_one/clobber_fds.py").find("delivered no result") != std::string::npos);

  // The fork bomb ran, and nothing it started is alive (checked again after the run below). Its
  // children still sleep when its correctness checks end: rejected child_process (processes that
  // run beside the baselines' timed calls), and the run goes on.
  CHECK(status("add_one/fork_bomb.py") == "rejected");
  CHECK(by.at("add_one/fork_bomb.py")["diagnostics"]["integrity"]["check"] == "child_process");
  CHECK(stdout_tail("add_one/fork_bomb.py").find("fork-bomb started") != std::string::npos);
  // With child_process off it is timed placed apart, children alive through the witness window.
  CHECK(status("add_one_forks/fork_bomb.py") == "ok");
  CHECK(!process_alive_in(work));

  // Killing its parent and its kbench ancestors did not stop the run (exit 0 above).
  CHECK(status("add_one/kill_parent.py") == "ok");
  CHECK(stdout_tail("add_one/kill_parent.py").find("kill-parent: kill(") != std::string::npos);

  // No write outside the job dir succeeded.
  CHECK(status("add_one/write_outside.py") == "ok");
  if (support.landlock_abi > 0) {
    CHECK(stdout_tail("add_one/write_outside.py").find("wrote") == std::string::npos);
    for (const auto& file : escapes) {
      INFO(file);
      CHECK(!std::filesystem::exists(file));
      std::filesystem::remove(file);
    }
  }

  // The secrets are nowhere: not in the results, not in any file under the work dir.
  CHECK(status("add_one/read_secrets.py") == "ok");
  CHECK(stdout_tail("add_one/read_secrets.py").find("read-secrets: read ") != std::string::npos);
  CHECK(stdout_tail("add_one/read_secrets.py").find("FOUND") == std::string::npos);
  CHECK(text.find(kOpenAiSecret) == std::string::npos);
  CHECK(text.find(kKbenchSecret) == std::string::npos);
  CHECK(slurp(log).find(kOpenAiSecret) == std::string::npos);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(work)) {
    if (!entry.is_regular_file() || entry.file_size() > (8u << 20)) continue;
    const auto content = slurp(entry.path());
    INFO(entry.path());
    CHECK(content.find(kOpenAiSecret) == std::string::npos);
    CHECK(content.find(kKbenchSecret) == std::string::npos);
  }

  // No network: the server saw no connection.
  CHECK(status("add_one/connect_socket.py") == "ok");
  if (support.namespaces) {
    CHECK(!connected);
    CHECK(stdout_tail("add_one/connect_socket.py").find("connect-socket: failed") != std::string::npos);
  }

  // A forged "ok" frame without the key's MAC is a failure, never ok.
  CHECK(status("add_one/forge_result_frame.py") == "crashed");
  CHECK(message("add_one/forge_result_frame.py").find("MAC does not verify") != std::string::npos);

  CHECK(status("add_one_memory/memory_blowup.py") == "crashed");
  CHECK(message("add_one_memory/memory_blowup.py").find("exceeded the host memory limit (1.5 GiB") !=
        std::string::npos);

  CHECK(status("add_one_compile_hang/infinite_loop.py") == "timeout");
  CHECK(message("add_one_compile_hang/infinite_loop.py").find("(compile_timeout_s)") != std::string::npos);
  CHECK(status("add_one_run_hang/hang_after_first_call.py") == "timeout");
  CHECK(message("add_one_run_hang/hang_after_first_call.py").find("5 s limit (run_timeout_s)") !=
        std::string::npos);

  // After all of that, honest work still runs and is timed, and nothing survived.
  CHECK(status("add_one_after/add_one_ok.py") == "ok");
  CHECK(by.at("add_one_after/add_one_ok.py")["timings"]["candidate"]["n"] >= 3);
  CHECK(!process_alive_in(work));
}
