// End to end: hostile candidates are recorded with a reason and never stop the run.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("every fault becomes a status and the run goes on") {
  test::TempDir dir;
  const auto results = dir.path() / "faults.json";
  const auto out = test::run_kbench("run " + (test::kDataDir / "suites/faults.yaml").string() +
                                    " --device cpu -o " + results.string());
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto json = nlohmann::json::parse(std::ifstream(results));
  REQUIRE(json["results"].size() == 12);
  CHECK(json["complete"] == true);

  std::map<std::string, nlohmann::json> by_candidate;
  for (const auto& r : json["results"])
    by_candidate[r["problem"].get<std::string>() + "/" + r["candidate"].get<std::string>()] = r;
  auto status = [&](const std::string& key) { return by_candidate.at(key)["status"].get<std::string>(); };
  auto message = [&](const std::string& key) { return by_candidate.at(key)["message"].get<std::string>(); };

  CHECK(status("add_one/add_one_ok.py") == "ok");
  CHECK(status("add_one/add_one_forged_frame.py") == "ok");
  CHECK(by_candidate.at("add_one/add_one_forged_frame.py")["diagnostics"]["stdout_tail"]
            .get<std::string>().find("noise from forward") != std::string::npos);
  CHECK(status("add_one/add_one_wrong_shape.py") == "mismatch");
  CHECK(message("add_one/add_one_wrong_shape.py").find("shape") != std::string::npos);
  CHECK(status("add_one/segfault.py") == "crashed");
  CHECK(message("add_one/segfault.py").find("signal 11") != std::string::npos);
  CHECK(status("add_one/abort.py") == "crashed");
  CHECK(message("add_one/abort.py").find("signal 6") != std::string::npos);
  CHECK(status("add_one/raise_in_forward.py") == "runtime_error");
  CHECK(by_candidate.at("add_one/raise_in_forward.py")["diagnostics"]["traceback"]
            .get<std::string>().find("candidate gave up") != std::string::npos);
  CHECK(status("add_one/syntax_error.py") == "compile_error");
  CHECK(status("add_one/exit_on_import.py") == "compile_error");
  CHECK(message("add_one/exit_on_import.py").find("SystemExit") != std::string::npos);
  CHECK(status("add_one/os_exit_in_forward.py") == "crashed");
  CHECK(message("add_one/os_exit_in_forward.py").find("delivered no result") != std::string::npos);
  CHECK(status("add_one/no_model_new.py") == "compile_error");
  CHECK(status("add_one_hang/infinite_loop.py") == "timeout");
  // After all of that, honest work still runs and is timed.
  CHECK(status("add_one_after/add_one_ok.py") == "ok");
  CHECK(by_candidate.at("add_one_after/add_one_ok.py")["timings"]["candidate"]["n"] >= 3);
}

namespace {
// True while any process has its working directory inside `dir` (i.e. a worker survives).
bool process_alive_in(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::error_code error;
    const auto cwd = std::filesystem::read_symlink(entry.path() / "cwd", error);
    if (!error && cwd.string().rfind(dir.string(), 0) == 0) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("Ctrl-C stops the run, kills the running worker and keeps the results file") {
  test::TempDir dir;
  const auto results = dir.path() / "r.json";
  const auto work = dir.path() / "work";
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string suite = (test::kDataDir / "suites/interrupt.yaml").string();
    execl(test::kKbench.c_str(), "kbench", "run", suite.c_str(), "--device", "cpu", "-o",
          results.c_str(), "--work-dir", work.c_str(), "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the hanging candidate's worker is running.
  for (int i = 0; i < 600 && !std::filesystem::exists(work / "job-0000" / "job.json"); ++i) usleep(100000);
  sleep(3);
  REQUIRE(process_alive_in(work / "job-0000"));
  kill(pid, SIGINT);
  int status = 0;
  for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; ++i) usleep(100000);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(!process_alive_in(work));
  const auto json = nlohmann::json::parse(std::ifstream(results));
  CHECK(json["complete"] == false);
  CHECK(json["results"].empty());
  CHECK(json["summary"]["planned_evaluations"] == 2);
}
