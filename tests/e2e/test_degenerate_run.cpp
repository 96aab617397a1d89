// A problem marked `degenerate: true` in its suite: `kbench run` says so next to its results in
// every report (results JSON, terminal table, Markdown, HTML, JUnit, CSV), and a run of an
// imported KernelBench-shaped tree works end to end. Two CPU jobs, about 15 s.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "kernelbench_tree.hpp"
#include "run_kbench.hpp"

using kbench::test::TempDir;

using kbench::test::read_text;

TEST_CASE("run marks a degenerate problem's results in every report") {
  TempDir dir;
  kbench::test::write_kernelbench_tree(dir);
  const auto suite = dir.path() / "kb.yaml";
  REQUIRE(kbench::test::run_kbench("import kernelbench " + (dir.path() / "kb").string() +
                                   " --levels 1 --candidates '" +
                                   (kbench::test::kSourceDir / "benchmarks/timing/reference_as_candidate.py").string() +
                                   "' -o " + suite.string())
              .exit_code == 0);
  // Mark Softmax degenerate (as a suite author would after `kbench validate`), quick settings.
  std::string yaml = read_text(suite);
  const std::string anchor = "  - id: \"L1_23_Softmax\"\n";
  REQUIRE(yaml.find(anchor) != std::string::npos);
  yaml.replace(yaml.find(anchor), anchor.size(),
               anchor + "    degenerate: true\n    degenerate_reason: \"rows sum to 1: a constant 1/dim passes\"\n");
  yaml.replace(yaml.find("defaults:\n"), 10,
               "defaults:\n  seeds: 1\n  timeout_s: 300\n  timing: {warmup: 1, min_samples: 2, max_time_s: 0.2}\n");
  std::ofstream(suite) << yaml;

  const auto out = dir.path() / "out";
  std::filesystem::create_directories(out);
  const auto r = kbench::test::run_kbench(
      "run " + suite.string() + " --device cpu --checks minimal --baselines eager --problems 'L1_19*' "
      "--problems 'L1_23*' -o " + (out / "r.json").string() + " --md " + (out / "r.md").string() +
      " --html " + (out / "r.html").string() + " --junit " + (out / "r.xml").string() + " --csv " +
      (out / "r.csv").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string reason = "rows sum to 1: a constant 1/dim passes";
  CHECK(r.output.find("!! degenerate problem: " + reason) != std::string::npos);

  const auto json = nlohmann::json::parse(read_text(out / "r.json"));
  REQUIRE(json["results"].size() == 2);
  for (const auto& result : json["results"]) {
    CHECK(result["status"] == "ok");
    const bool softmax = result["problem"] == "L1_23_Softmax";
    CHECK(result.contains("degenerate") == softmax);
    if (softmax) CHECK(result["degenerate_reason"] == reason);
  }
  for (const char* file : {"r.md", "r.html", "r.xml", "r.csv"})
    CHECK(read_text(out / file).find("rows sum to 1") != std::string::npos);
  CHECK(read_text(out / "r.xml").find("<system-out>degenerate problem: rows sum to 1") != std::string::npos);
}
