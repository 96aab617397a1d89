// End to end on the CPU: `kbench run --max-wall S` stops a run by its deadline as two Ctrl-Cs
// would (exec/wall_deadline.hpp): no job starts after S, a running job gets the grace to
// finish (or is killed when the grace is over), the report and journal keep what finished, and
// `--resume` runs the rest without running a finished job again. Jobs of the smoke suite take
// several seconds each on the CPU, so a 2 s deadline always falls inside the first one.
#include <fstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "results_by_key.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

std::string smoke_run(const std::filesystem::path& results) {
  return "run " + (test::kSourceDir / "configs/suites/smoke.yaml").string() +
         " --device cpu -j 1 --baselines eager --problems 01_leaky_relu_scale --problems 04_layernorm "
         "--problems 05_bias_gelu_residual -o " + results.string();
}

}  // namespace

TEST_CASE("--max-wall stops starting jobs, lets the running one finish, and --resume runs the rest") {
  test::TempDir dir;
  const auto results = dir.path() / "cut.json";
  const auto cut = test::run_kbench(smoke_run(results) + " --max-wall 2");
  INFO(cut.output);
  CHECK(cut.exit_code == 130);
  CHECK(cut.output.find("--max-wall 2 s reached: no new jobs start") != std::string::npos);
  CHECK(cut.output.find("stopped by --max-wall 2 s after 1 of 3 evaluations") != std::string::npos);
  const auto first = nlohmann::json::parse(std::ifstream(results));
  CHECK(first["complete"] == false);
  REQUIRE(first["results"].size() == 1);
  CHECK(first["results"][0]["status"] == "ok");  // finished inside the grace, not killed
  const std::string done = first["results"][0]["candidate"];

  const auto resumed = test::run_kbench(smoke_run(results) + " --resume --max-wall 600");
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  const auto all = nlohmann::json::parse(std::ifstream(results));
  CHECK(all["complete"] == true);
  CHECK(all["results"].size() == 3);
  // The finished job came from the journal: the run started only the two left.
  CHECK(resumed.output.find("1 of 3 evaluations already done") != std::string::npos);
  CHECK(resumed.output.find("[1/3]") == std::string::npos);
  CHECK(resumed.output.find("[3/3]") != std::string::npos);
  CHECK(resumed.output.find("/ " + done + ":") == std::string::npos);
  CHECK(test::results_by_key(all["results"]).size() == 3);
}

TEST_CASE("--max-wall-grace 0 kills the running job; nothing unfinished is reported as done") {
  test::TempDir dir;
  const auto results = dir.path() / "killed.json";
  const auto killed = test::run_kbench(smoke_run(results) + " --max-wall 1 --max-wall-grace 0");
  INFO(killed.output);
  CHECK(killed.exit_code == 130);
  CHECK(killed.output.find("--max-wall-grace 0 s over: killing the running jobs") != std::string::npos);
  if (std::filesystem::exists(results)) {
    const auto json = nlohmann::json::parse(std::ifstream(results));
    CHECK(json["complete"] == false);
    CHECK(json["results"].empty());
  }
}

TEST_CASE("--max-wall takes a positive number of seconds") {
  test::TempDir dir;
  for (const char* bad : {"0", "-5", "soon"}) {
    const auto out = test::run_kbench(smoke_run(dir.path() / "r.json") + " --max-wall " + bad);
    INFO(bad << ": " << out.output);
    CHECK(out.exit_code == 2);
    CHECK(out.output.find("--max-wall") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "r.json"));
}
