// Golden-file tests: a format change must be deliberate. Regenerate with
// KBENCH_UPDATE_GOLDEN=1 ./test_report_formats and review the diff.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "report/results_json.hpp"
#include "report/terminal_table.hpp"
#include "report/text_table.hpp"
#include "sample_report.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;

namespace {
void check_golden(const std::string& name, const std::string& actual) {
  const auto file = test::kGoldenDir / name;
  if (std::getenv("KBENCH_UPDATE_GOLDEN")) std::ofstream(file) << actual;
  std::ifstream in(file);
  REQUIRE(in);
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}
}  // namespace

TEST_CASE("results JSON matches its golden file") {
  check_golden("results_sample.json", results_json(test::sample_report()).dump(2) + "\n");
}

TEST_CASE("terminal table and summary line match their golden file") {
  const auto report = test::sample_report();
  check_golden("table_sample.txt", terminal_table(report) + "\n" + summary_line(report) + "\n");
}

TEST_CASE("results JSON has the documented top-level and per-result fields") {
  const auto json = results_json(test::sample_report());
  for (const char* key : {"schema_version", "environment", "results", "summary", "device", "complete"})
    CHECK(json.contains(key));
  for (const char* key : {"pass_at_1", "beats_inductor", "geomean_speedup_vs_inductor",
                          "geomean_speedup_vs_eager"})
    CHECK(json["summary"].contains(key));
  const auto& first = json["results"][0];
  for (const char* key : {"problem", "candidate", "status", "diagnostics", "timings",
                          "speedup_vs_eager", "speedup_vs_inductor"})
    CHECK(first.contains(key));
  CHECK(first["timings"]["candidate"]["median_ms"] == 1.0);
  CHECK(json["results"][2]["speedup_vs_eager"].is_null());
}

TEST_CASE("results are written atomically and bad paths fail fast") {
  test::TempDir dir;
  const auto file = dir.path() / "r.json";
  write_results_json(test::sample_report(), file);
  CHECK(nlohmann::json::parse(std::ifstream(file))["summary"]["evaluations"] == 4);
  CHECK(!std::filesystem::exists(file.string() + ".tmp"));
  CHECK_THROWS_AS(check_writable(dir.path() / "missing-folder" / "r.json"), InputError);
  CHECK_NOTHROW(check_writable(dir.path() / "ok.json"));
}

// Issue 17, defect 10: no "CUDA 13.0 | driver " on a CPU run.
TEST_CASE("the environment line leaves CUDA out on the CPU and never prints an empty field") {
  const nlohmann::json env = {{"device_name", "CPU: AMD EPYC"}, {"torch", "2.11.0+cu130"},
                              {"triton", "3.6.0"}, {"cuda", "13.0"}, {"driver", ""}};
  CHECK(environment_line(env, cpu_device()) == "CPU: AMD EPYC | torch 2.11.0+cu130 | triton 3.6.0");
  CHECK(environment_line(env, cuda_device(0)) ==
        "CPU: AMD EPYC | torch 2.11.0+cu130 | triton 3.6.0 | CUDA 13.0 | driver -");
  CHECK(environment_line(nlohmann::json::object(), every_cuda_device()) == "- | torch - | triton - | CUDA - | driver -");
}

TEST_CASE("the text table pads every column to its widest cell, numbers to the right") {
  TextTable table({"name", "ms", "note"}, {false, true, false});
  table.add_row({"a", "1.5", ""});
  table.add_row({"longer", "12.25", "x"});
  CHECK(table.str() ==
        "name       ms  note\n"
        "-------------------\n"
        "a         1.5\n"  // no padding left at the end of a line
        "longer  12.25  x\n");
  CHECK(table.header_lines() + table.row_line(0) + table.row_line(1) == table.str());
  CHECK_THROWS_AS(table.add_row({"short"}), std::logic_error);
}
