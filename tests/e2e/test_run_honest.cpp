// End to end: the CPU half of the honest corpus (tests/honest/README.md) -- Triton candidates
// through Triton's interpreter and C++ CPU extensions built with load_inline -- must all be
// `ok` with no flag at strict checks with require_custom_kernel (zero false positives).
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("every honest CPU candidate is ok with no flag at --checks strict") {
  test::TempDir dir;
  const auto results = dir.path() / "honest_cpu.json";
  const auto suite = test::kDataDir / "suites" / "honest_cpu.yaml";
  const auto out = test::run_kbench("run " + suite.string() + " --device cpu --checks strict -o " +
                                    results.string());
  INFO(out.output);
  // Exit 0 even when a candidate fails; the per-result checks below say which one.
  REQUIRE(out.exit_code == 0);

  const auto json = nlohmann::json::parse(std::ifstream(results));
  REQUIRE(json["complete"] == true);
  std::set<std::string> seen_dirs;
  int cpp_extensions = 0;
  for (const auto& r : json["results"]) {
    const auto file = r["candidate_file"].get<std::string>();
    INFO(r["problem"].get<std::string>() << " / " << r["candidate"].get<std::string>() << ": "
         << r["status"] << " " << r.value("message", nlohmann::json()).dump());
    CHECK(r["status"] == "ok");
    CHECK(r["diagnostics"]["checks"] == "strict");
    CHECK(r["diagnostics"].value("flags", nlohmann::json::array()).empty());
    seen_dirs.insert(std::filesystem::path(file).parent_path().filename().string());
    if (file.find("/honest/cpu/") != std::string::npos) ++cpp_extensions;
  }
  // The suite really ran both halves: 14 Triton files and 6 C++ extensions (one twice).
  CHECK(json["results"].size() == 21);
  CHECK(cpp_extensions == 7);
  // Isolated, its timing witnessed: at 32 MiB an output, the witness's calls were opened in
  // groups, one revealed inside the window, and the judge ran the reference once per call.
  for (const auto& r : json["results"]) {
    if (r["problem"] != "smoke_01_leaky_relu_scale_large") continue;
    INFO(r["diagnostics"]["isolation"].dump() << " " << r["diagnostics"].value("judged", nlohmann::json()).dump());
    const auto& witness = r["diagnostics"]["isolation"]["witness"];
    CHECK(witness["groups"].get<int>() >= 2);
    CHECK(r["diagnostics"]["judged"]["witness"]["calls"] == witness["calls"]);
    CHECK(r["diagnostics"]["judged"]["witness"]["reference_calls"] == witness["calls"]);
  }
  CHECK(seen_dirs == std::set<std::string>{"cpu", "triton"});
}
