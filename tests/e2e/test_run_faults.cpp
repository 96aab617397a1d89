// End to end: hostile candidates are recorded with a reason and never stop the run.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "process_probe.hpp"
#include "run_kbench.hpp"
#include "results_by_key.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using kbench::test::process_alive_in;

TEST_CASE("every fault becomes a status and the run goes on") {
  test::TempDir dir;
  const auto results = dir.path() / "faults.json";
  const auto out = test::run_kbench("run " + (test::kDataDir / "suites/faults.yaml").string() +
                                    " --device cpu -o " + results.string());
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto json = nlohmann::json::parse(std::ifstream(results));
  REQUIRE(json["results"].size() == 13);
  CHECK(json["complete"] == true);

  const auto by_candidate = test::results_by_key(json["results"]);
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
  // The worker's own verdict, not the compile_error of the child it forked during import.
  CHECK(status("add_one/fork_child_delivers.py") == "mismatch");
  CHECK(status("add_one_hang/infinite_loop.py") == "timeout");
  // After all of that, honest work still runs and is timed.
  CHECK(status("add_one_after/add_one_ok.py") == "ok");
  CHECK(by_candidate.at("add_one_after/add_one_ok.py")["timings"]["candidate"]["n"] >= 3);
}

namespace {
// Starts `kbench run SUITE --device cpu -o RESULTS --work-dir WORK -q` in its own process group,
// as a shell starts a foreground job: a terminal's Ctrl-C goes to that whole group.
pid_t start_run_in_group(const std::string& suite, const std::filesystem::path& results,
                         const std::filesystem::path& work) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const int err = open((results.string() + ".stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, STDERR_FILENO);
    execl(test::kKbench.c_str(), "kbench", "run", suite.c_str(), "--device", "cpu", "-o",
          results.c_str(), "--work-dir", work.c_str(), "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

// Waits up to `seconds` for `pid` to exit; true with its status when it did.
bool wait_exit(pid_t pid, int& status, double seconds) {
  for (int i = 0; i < int(seconds * 10); ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return true;
    usleep(100000);
  }
  return false;
}

void wait_for_file(const std::filesystem::path& file) {
  for (int i = 0; i < 600 && !std::filesystem::exists(file); ++i) usleep(100000);
}
}  // namespace

TEST_CASE("first Ctrl-C: no new job starts, the running one finishes and is reported") {
  test::TempDir dir;
  const auto results = dir.path() / "r.json";
  const auto work = dir.path() / "work";
  const pid_t pid = start_run_in_group((test::kDataDir / "suites/interrupt_finish.yaml").string(),
                                       results, work);
  wait_for_file(work / "job-0000" / "job.json");
  sleep(1);
  REQUIRE(process_alive_in(work / "job-0000"));
  kill(-pid, SIGINT);  // the whole foreground group, as a terminal does; workers have their own
  int status = 0;
  REQUIRE(wait_exit(pid, status, 120));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(!process_alive_in(work));
  CHECK(!std::filesystem::exists(work / "job-0001"));  // never started
  const auto json = nlohmann::json::parse(std::ifstream(results));
  CHECK(json["complete"] == false);
  REQUIRE(json["results"].size() == 1);
  CHECK(json["results"][0]["problem"] == "add_one_slow");
  CHECK(json["results"][0]["status"] == "ok");  // the slow job was not killed
  CHECK(json["summary"]["planned_evaluations"] == 2);
  std::stringstream err;
  err << std::ifstream(results.string() + ".stderr").rdbuf();
  CHECK(err.str().find("Press Ctrl-C again to kill running jobs") != std::string::npos);
  CHECK(err.str().find("interrupted after 1 of 2 evaluations") != std::string::npos);
}

TEST_CASE("second Ctrl-C kills the running worker and still keeps the results file") {
  test::TempDir dir;
  const auto results = dir.path() / "r.json";
  const auto work = dir.path() / "work";
  const pid_t pid =
      start_run_in_group((test::kDataDir / "suites/interrupt.yaml").string(), results, work);
  // Wait until the hanging candidate's worker is running.
  wait_for_file(work / "job-0000" / "job.json");
  sleep(3);
  REQUIRE(process_alive_in(work / "job-0000"));
  kill(-pid, SIGINT);
  int status = 0;
  // The first Ctrl-C waits for the (endless) job: kbench and its worker keep running.
  CHECK_FALSE(wait_exit(pid, status, 2));
  CHECK(process_alive_in(work / "job-0000"));
  kill(-pid, SIGINT);
  REQUIRE(wait_exit(pid, status, 10));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(!process_alive_in(work));
  const auto json = nlohmann::json::parse(std::ifstream(results));
  CHECK(json["complete"] == false);
  CHECK(json["results"].empty());
  CHECK(json["summary"]["planned_evaluations"] == 2);
  // The second Ctrl-C says what it does (issue 17, defect 10).
  std::stringstream err;
  err << std::ifstream(results.string() + ".stderr").rdbuf();
  CHECK(err.str().find("interrupted again: killing the running jobs") != std::string::npos);
}
