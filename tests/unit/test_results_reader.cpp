// The results reader: a written file reads back to the same report, and bad files are refused.
#include "catch.hpp"
#include "core/error.hpp"
#include "report/results_json.hpp"
#include "report/results_reader.hpp"
#include "sample_report.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("results JSON round-trips through the reader") {
  const auto json = results_json(test::sample_report());
  const RunReport back = read_results_json(json, "sample.json");
  CHECK(results_json(back) == json);
  CHECK(back.results.at(0).speedups.at("inductor").verdict.has_value());
}

TEST_CASE("statistics are recomputed from the samples, not read from the file") {
  auto json = results_json(test::sample_report());
  json["results"][0]["timings"]["candidate"]["median_ms"] = 123.0;
  json["results"][0]["speedup_vs_inductor"] = 99.0;
  json["summary"]["pass_at_1"] = 1.0;
  const RunReport back = read_results_json(json, "edited.json");
  CHECK(back.results[0].timings.at("candidate").stats.median == 1.0);
  CHECK(results_json(back) == results_json(test::sample_report()));
}

TEST_CASE("an interrupted run stays incomplete") {
  auto report = test::sample_report();
  report.planned_jobs = 6;
  const auto back = read_results_json(results_json(report), "partial.json");
  CHECK(back.planned_jobs == 6);
  CHECK(results_json(back)["complete"] == false);
}

TEST_CASE("malformed results files are InputErrors naming the file and the problem") {
  const auto good = results_json(test::sample_report());
  auto refuses = [](const nlohmann::json& json, const std::string& needle) {
    try {
      read_results_json(json, "bad.json");
    } catch (const InputError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.rfind("bad.json: ", 0) == 0);
      CHECK(what.find(needle) != std::string::npos);
      return;
    }
    FAIL("accepted a bad file: " << needle);
  };
  auto j = good;
  j["schema_version"] = "2.0";
  refuses(j, "schema_version 2.0 is not supported");
  j = good;
  j.erase("results");
  refuses(j, "missing 'results'");
  j = good;
  j["results"][1]["status"] = "great";
  refuses(j, "results[1].status");
  j = good;
  j["results"][0]["timings"]["candidate"]["samples_ms"] = "fast";
  refuses(j, "results[0].timings.candidate.samples_ms");
  j = good;
  j["results"][0]["timings"]["candidate"]["samples_ms"][0] = -1.0;
  refuses(j, "samples_ms[0]: must be a number in [0, 1000000000], got -1");
  j = good;
  j["results"][0]["timings"]["eager"]["rounds"] = {0};
  refuses(j, "differ in length");
  refuses(nlohmann::json::array(), "not a kbench results file");

  test::TempDir dir;
  const auto file = dir.write("broken.json", "{\"schema_version\": ");
  CHECK_THROWS_AS(read_results_file(file), InputError);
  CHECK_THROWS_AS(read_results_file(dir.path() / "missing.json"), InputError);
  const auto minor = dir.write("minor.json", [&] {
    auto k = good;
    k["schema_version"] = "1.7";  // a newer minor only adds fields
    return k.dump();
  }());
  CHECK_NOTHROW(read_results_file(minor));
}

// Issue 17, defects 5 and 6: deep nesting and absurd numbers are exit-2 errors naming the file
// and the JSON path, never a crash or an "internal error".
namespace {
std::string read_error(const test::TempDir& dir, const std::string& text) {
  const auto file = dir.write("r.json", text);
  try {
    read_results_file(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("deeply nested JSON is refused with its path, not a stack overflow") {
  test::TempDir dir;
  auto json = results_json(test::sample_report()).dump();
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1";
  deep += std::string(100000, '}');
  json.replace(json.find("\"environment\":{") + 15, 0, "\"deep\":" + deep + ",");
  const auto error = read_error(dir, json);
  CHECK(error.find("r.json: environment.deep.a.a") != std::string::npos);
  CHECK(error.find("nested deeper than 64 levels") != std::string::npos);
  const auto arrays = read_error(dir, std::string(100000, '[') + std::string(100000, ']'));
  CHECK(arrays.find("r.json: [0][0][0]") != std::string::npos);
}

TEST_CASE("numbers that overflow or are absurd are refused with the file and JSON path") {
  test::TempDir dir;
  auto json = results_json(test::sample_report());
  auto text = json.dump();
  const auto at = text.find("\"wall_s\":");
  text.replace(at, text.find(',', at) - at, "\"wall_s\":1e400");
  const auto overflow = read_error(dir, text);
  CHECK(overflow.find("r.json: results[0].wall_s: a number too large for a double") != std::string::npos);

  json["results"][0]["timings"]["candidate"]["samples_ms"][1] = 1e308;
  const auto absurd = read_error(dir, json.dump());
  CHECK(absurd.find("r.json: results[0].timings.candidate.samples_ms[1]: must be a number in [0, "
                    "1000000000], got 1e+308") != std::string::npos);
}
