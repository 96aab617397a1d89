// Bounded memory end to end on the CPU (docs/memory.md; tests/data/suites/memory.yaml): every
// result reports its footprint, plan and host peak; out-of-memory errors name whose memory;
// trials whose expected outputs would not fit the host budget are not run, and said so; with
// --device-memory-gb two workers are admitted by memory and a job whose plan does not fit a
// shared grant runs again alone. About 2-4 minutes on the 2-core CI machine.
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

const std::string kSuite = (test::kDataDir / "suites/memory.yaml").string();

std::map<std::string, nlohmann::json> by_job(const std::filesystem::path& file) {
  std::map<std::string, nlohmann::json> out;
  const auto doc = nlohmann::json::parse(std::ifstream(file));
  for (const auto& r : doc.at("results"))
    out[r.at("problem").get<std::string>() + "/" + r.at("candidate").get<std::string>()] = r;
  return out;
}

}  // namespace

TEST_CASE("memory figures, out-of-memory statuses and the host plan, through the binary") {
  test::TempDir dir;
  const auto results = dir.path() / "r.json";
  const auto run = test::run_kbench("run " + kSuite + " --device cpu -o " + results.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("memory: peak host") != std::string::npos);
  CHECK(run.output.find("2 out of memory") != std::string::npos);
  auto r = by_job(results);

  const auto& ok = r.at("wide_relu/wide_relu_ok.py");
  CHECK(ok["status"] == "ok");
  CHECK(ok["memory"]["plan"]["footprint"]["input_bytes"] == 1024 * 4096 * 4);
  CHECK(ok["memory"]["plan"]["footprint"]["output_bytes"] == 1024 * 4096 * 4);
  CHECK(ok["memory"]["plan"]["plan"]["trials_dropped"] == 0);
  CHECK(ok["memory"]["host_peak_rss_bytes"].get<long long>() > 1024 * 4096 * 4);
  CHECK(ok["memory"]["gpu_peak_reserved_bytes"].is_null());

  const auto& candidate = r.at("wide_relu/oversized_workspace.py");
  CHECK(candidate["status"] == "runtime_error");
  CHECK(candidate["message"].get<std::string>().rfind("out of host memory in the candidate", 0) == 0);
  CHECK(candidate["diagnostics"]["out_of_memory"]["whose"] == "candidate");
  CHECK(candidate["diagnostics"]["out_of_memory"]["memory"] == "host");
  CHECK(candidate["diagnostics"]["out_of_memory"]["error"].get<std::string>().find("can't allocate") !=
        std::string::npos);

  const auto& reference = r.at("oversized_reference/wide_relu_ok.py");
  CHECK(reference["status"] == "problem_error");
  CHECK(reference["message"].get<std::string>().rfind("out of host memory in the reference", 0) == 0);
  CHECK(reference["diagnostics"]["out_of_memory"]["whose"] == "reference");

  const auto& tight = r.at("wide_relu_tight_host/wide_relu_ok.py");
  CHECK(tight["status"] == "ok");
  CHECK(tight["memory"]["plan"]["plan"]["trials_dropped"].get<int>() >= 1);
  CHECK(tight["diagnostics"]["correctness"]["notes"].dump().find("memory plan:") != std::string::npos);
  CHECK(tight["diagnostics"]["correctness"]["seeds_checked"].get<int>() < 3);

  // The results file reads back (kbench's own reader, through the memory codec).
  CHECK(test::run_kbench("compare " + results.string() + " " + results.string()).exit_code == 0);
}

TEST_CASE("--device-memory-gb: a plan that does not fit a shared grant runs again alone") {
  test::TempDir dir;
  const auto results = dir.path() / "r.json";
  // Two slots share 0.1 GiB: a fair share (51 MiB, 85% planned) is less than wide_relu's
  // minimum (6 x 16 MiB), so each job stops after its first reference call and runs again
  // with the whole 0.1 GiB.
  const auto run = test::run_kbench("run " + kSuite + " --device cpu --problems wide_relu --jobs 2 "
                                    "--device-memory-gb 0.1 -o " + results.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("run again alone") != std::string::npos);
  auto r = by_job(results);
  const auto& ok = r.at("wide_relu/wide_relu_ok.py");
  CHECK(ok["status"] == "ok");
  CHECK(ok["diagnostics"]["memory_retry"]["first_attempt"].get<std::string>().find("out of host memory") !=
        std::string::npos);
  CHECK(ok["memory"]["gpu_alone"] == true);
  CHECK(ok["memory"]["gpu_budget_bytes"] == static_cast<long long>(0.1 * double(1LL << 30)));
  CHECK(ok["memory"]["plan"]["plan"]["fits"] == false);  // alone it runs anyway
  CHECK(r.at("wide_relu/oversized_workspace.py")["status"] == "runtime_error");
}
