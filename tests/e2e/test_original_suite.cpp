// The original suite (configs/suites/original.yaml, issue #13) on the CPU through the binary:
// its shape (>= 40 problem files over levels 1-3, fp32 plus half-precision entries, >= 15
// problems with a Triton solution, every problem file of benchmarks/problems/original/ in the
// suite), then `kbench validate` of every entry at the CPU sizes, which must all be `ok`.
// Cost: `list` under a second; `validate --no-inductor` starts one sandboxed worker per entry,
// 50 entries, ~7-10 min on two busy cores (8-25 s each). The Triton solutions themselves are
// compiled for sm_90 by test_triton_compile; their kbench run is in the report of issue #13
// (benchmarks/results/cpu/original-triton.txt), not in CI (25 interpreter jobs, ~10 min more).
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"

using namespace kbench;

namespace {
const auto kSuite = test::kSourceDir / "configs" / "suites" / "original.yaml";
}

TEST_CASE("the original suite has its levels, half-precision entries and Triton solutions") {
  const auto out = test::run_kbench("list " + kSuite.string() + " --json");
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto json = nlohmann::json::parse(out.output);
  std::set<std::string> files, triton_files;
  std::set<int> levels;
  int half = 0;
  for (const auto& p : json["problems"]) {
    INFO(p["id"].get<std::string>());
    files.insert(std::filesystem::path(p["file"].get<std::string>()).filename().string());
    levels.insert(p["level"].get<int>());
    const auto& tags = p["tags"];
    const bool is_half = std::find(tags.begin(), tags.end(), "half") != tags.end();
    const bool has_triton = std::find(tags.begin(), tags.end(), "triton") != tags.end();
    half += is_half ? 1 : 0;
    // The `triton` tag is how a run selects the solved problems: it must match the files.
    CHECK(has_triton == (p["candidates"]["count"].get<int>() > 0));
    if (has_triton) triton_files.insert(p["file"].get<std::string>());
  }
  CHECK(files.size() >= 40);
  CHECK(levels == std::set<int>{1, 2, 3});
  CHECK(half >= 4);
  CHECK(triton_files.size() >= 15);
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(test::kSourceDir / "benchmarks" / "problems" / "original"))
    if (entry.path().extension() == ".py") on_disk.insert(entry.path().filename().string());
  CHECK(on_disk == files);
}

TEST_CASE("every entry of the original suite validates on the CPU") {
  const auto out = test::run_kbench("validate " + kSuite.string() + " --device cpu --no-inductor");
  INFO(out.output);
  CHECK(out.exit_code == 0);
  CHECK(out.output.find("50 problems: 50 ok, 0 failed") != std::string::npos);
}
