// End to end on the CPU: a run killed with SIGKILL continues with --resume (every job exactly
// once, earlier results kept byte for byte), and two worker slots run jobs side by side with
// the statuses of one slot, with pre-started workers.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "process_probe.hpp"
#include "run_kbench.hpp"
#include "results_by_key.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using kbench::test::process_alive_in;

namespace {

const std::string kSuite = (test::kDataDir / "suites/quick.yaml").string();
// quick.yaml's plan, in order.
const std::vector<std::string> kPlan = {
    "add_one_a/add_one_ok.py", "add_one_a/add_one_wrong_shape.py", "add_one_b/add_one_ok.py",
    "add_one_b/add_one_wrong_shape.py", "add_one_c/add_one_ok.py", "add_one_c/add_one_wrong_shape.py"};

std::string read_all(const std::filesystem::path& file) {
  std::stringstream s;
  s << std::ifstream(file).rdbuf();
  return s.str();
}

std::vector<nlohmann::json> journal_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

std::size_t complete_lines(const std::filesystem::path& file) {
  const std::string text = read_all(file);
  return std::size_t(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("SIGKILL mid-run, then --resume: every job exactly once, earlier results kept") {
  test::TempDir dir;
  const auto results = dir.path() / "r.json";
  const auto journal = dir.path() / "r.json.journal.jsonl";
  const auto work = dir.path() / "work";
  const pid_t pid = fork();
  if (pid == 0) {
    execl(test::kKbench.c_str(), "kbench", "run", kSuite.c_str(), "--device", "cpu", "-o",
          results.c_str(), "--work-dir", work.c_str(), "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Header + two finished jobs journaled.
  for (int i = 0; i < 3000 && (!std::filesystem::exists(journal) || complete_lines(journal) < 3); ++i)
    usleep(100000);
  REQUIRE(complete_lines(journal) >= 3);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  // The running worker dies with the controller (PR_SET_PDEATHSIG).
  bool survivor = true;
  for (int i = 0; i < 50 && (survivor = process_alive_in(work)); ++i) usleep(100000);
  CHECK_FALSE(survivor);

  std::string before = read_all(journal);
  before = before.substr(0, before.rfind('\n') + 1);  // a torn last line is not kept
  const auto earlier = journal_lines(before);
  const std::size_t done_before = earlier.size() - 1;
  REQUIRE(done_before >= 2);
  REQUIRE(done_before < kPlan.size());

  const auto work2 = dir.path() / "work2";
  const auto out = test::run_kbench("run " + kSuite + " --device cpu -o " + results.string() +
                                    " --work-dir " + work2.string() + " --resume");
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  CHECK(out.output.find("already done") != std::string::npos);

  // The journal only grew: the earlier lines are byte-identical.
  const std::string after = read_all(journal);
  CHECK(after.substr(0, before.size()) == before);
  const auto lines = journal_lines(after);
  REQUIRE(lines.size() == kPlan.size() + 1);
  std::set<std::size_t> indices;
  for (std::size_t i = 1; i < lines.size(); ++i) indices.insert(lines[i]["index"].get<std::size_t>());
  CHECK(indices.size() == kPlan.size());

  // The report: every job exactly once, in plan order, the earlier ones as journaled.
  const auto json = nlohmann::json::parse(std::ifstream(results));
  CHECK(json["complete"] == true);
  REQUIRE(json["results"].size() == kPlan.size());
  for (std::size_t i = 0; i < kPlan.size(); ++i) CHECK(test::result_key(json["results"][i]) == kPlan[i]);
  for (std::size_t i = 1; i < earlier.size(); ++i) {
    const auto index = earlier[i]["index"].get<std::size_t>();
    CHECK(json["results"][index] == earlier[i]["result"]);
    // Not run again.
    CHECK_FALSE(std::filesystem::exists(work2 / ("job-000" + std::to_string(index))));
  }
  for (const auto& r : json["results"])
    CHECK(r["status"] == (r["candidate"] == "add_one_ok.py" ? "ok" : "mismatch"));

  // A journal from another plan (here: another timeout) is refused before any work.
  const auto other = test::run_kbench("run " + kSuite + " --device cpu -o " + results.string() +
                                      " --timeout 99 --resume");
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("another plan") != std::string::npos);
}

TEST_CASE("two CPU slots with pre-started workers run jobs concurrently with the statuses of one slot") {
  test::TempDir dir;
  const auto two = dir.path() / "two.json";
  const auto one = dir.path() / "one.json";
  const auto run2 = test::run_kbench("run " + kSuite + " --device cpu -j 2 --prestart on -o " + two.string());
  INFO(run2.output);
  REQUIRE(run2.exit_code == 0);
  CHECK(run2.output.find("2 worker slots") != std::string::npos);
  const auto run1 = test::run_kbench("run " + kSuite + " --device cpu -o " + one.string());
  INFO(run1.output);
  REQUIRE(run1.exit_code == 0);

  const auto j2 = nlohmann::json::parse(std::ifstream(two));
  const auto j1 = nlohmann::json::parse(std::ifstream(one));
  REQUIRE(j2["results"].size() == kPlan.size());
  REQUIRE(j1["results"].size() == kPlan.size());
  std::set<int> slots;
  int overlapping = 0;
  for (std::size_t i = 0; i < kPlan.size(); ++i) {
    const auto& a = j2["results"][i];
    CHECK(test::result_key(a) == kPlan[i]);  // plan order whatever the completion order
    CHECK(a["status"] == j1["results"][i]["status"]);
    slots.insert(a["schedule"]["slot"].get<int>());
    CHECK(j1["results"][i]["schedule"]["slot"] == 0);
    for (std::size_t k = i + 1; k < kPlan.size(); ++k) {
      const auto& b = j2["results"][k];
      const double start = std::max(a["schedule"]["start_unix_s"].get<double>(), b["schedule"]["start_unix_s"].get<double>());
      const double end = std::min(a["schedule"]["end_unix_s"].get<double>(), b["schedule"]["end_unix_s"].get<double>());
      overlapping += start < end;
    }
  }
  CHECK(slots == std::set<int>{0, 1});
  // Pre-started workers: each slot's later jobs had finished their imports and waited for the
  // release, so their start-up was off the critical path.
  int hidden = 0;
  for (const auto& r : j2["results"]) {
    const auto& timeline = r["diagnostics"]["worker_timeline"];
    REQUIRE(timeline.contains("held_s"));
    if (timeline["held_s"].get<double>() > 0.1 &&
        r["diagnostics"]["harness_overhead_s"].get<double>() < timeline["startup_s"].get<double>())
      ++hidden;
  }
  CHECK(hidden >= 1);
  // With two slots, pairs of workers ran at the same time (one slot: none can).
  CHECK(overlapping >= 2);
}
