// End to end: the shipped smoke suite on the CPU (Triton through its interpreter).
#include <fstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("the smoke suite runs on the CPU: honest candidates ok, the wrong one a mismatch") {
  test::TempDir dir;
  const auto results = dir.path() / "smoke.json";
  const auto out = test::run_kbench("run " + (test::kSourceDir / "configs/suites/smoke.yaml").string() +
                                    " --device cpu -o " + results.string());
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  // The terminal table and the summary line.
  CHECK(out.output.find("problem") != std::string::npos);
  CHECK(out.output.find("vs inductor") != std::string::npos);
  CHECK(out.output.find("pass@1 ") != std::string::npos);

  const auto json = nlohmann::json::parse(std::ifstream(results));
  CHECK(json["schema_version"] == "1.1");  // 1.1: run metadata (command line, commit, start/finish)
  CHECK(json["device"] == "cpu");
  CHECK(json["complete"] == true);
  for (const char* key : {"device_name", "torch", "triton", "cuda", "driver", "kbench_version"})
    CHECK(json["environment"].contains(key));
  CHECK(json["environment"]["torch"].get<std::string>().rfind("2.", 0) == 0);

  REQUIRE(json["results"].size() == 7);
  int honest = 0;
  for (const auto& r : json["results"]) {
    const auto candidate = r["candidate"].get<std::string>();
    INFO(candidate << ": " << r["message"]);
    if (candidate == "02_softmax_wrong.py") {
      CHECK(r["status"] == "mismatch");
      CHECK(r["diagnostics"]["mismatch"]["max_abs_error"].get<double>() > 0.1);
      CHECK(r["speedup_vs_eager"].is_null());
      continue;
    }
    ++honest;
    CHECK(r["status"] == "ok");
    for (const char* variant : {"candidate", "eager", "inductor"}) {
      CHECK(r["timings"][variant]["timer"] == "host_clock");
      CHECK(r["timings"][variant]["n"] >= 10);
      CHECK(r["timings"][variant]["mode"] == "cold");
      CHECK(r["timings"][variant]["median_ms"].get<double>() > 0);
    }
    CHECK(r["speedup_vs_eager"].get<double>() > 0);
    CHECK(r["speedup_vs_inductor"].get<double>() > 0);
    CHECK(r["diagnostics"]["correctness"]["seeds_checked"] == 5);  // the default
    // Zero false positives: strict checks ran and found nothing (docs/integrity.md).
    CHECK(r["diagnostics"]["checks"] == "strict");
    CHECK(r["diagnostics"]["integrity_notes"]["launches_first_call"].size() == 1);
    CHECK(r["diagnostics"].value("flags", nlohmann::json::array()).empty());  // nothing to review
  }
  CHECK(honest == 6);
  const auto& summary = json["summary"];
  CHECK(summary["problems"] == 6);
  CHECK(summary["correct"] == 6);
  // Five problems with one correct candidate, softmax with one of two: (5 + 0.5) / 6.
  CHECK(summary["pass_at_1"].get<double>() == Catch::Approx(5.5 / 6.0));
  CHECK(summary["geomean_speedup_vs_inductor"].get<double>() > 0);
  CHECK(summary["geomean_speedup_vs_eager"].get<double>() > 0);
}
