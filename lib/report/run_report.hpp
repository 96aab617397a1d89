#pragma once
// Everything a report shows about one run; every reporter reads only this.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "model/job_result.hpp"
#include "model/run_info.hpp"

namespace kbench {

// How the run's candidates were generated, when they came from a model endpoint (docs/endpoints.md).
// Token and cost totals are derived from the results (report/generation_totals.hpp).
struct GenerationRun {
  std::string base_url;  // never holds the API key: that is read from an environment variable
  std::string model;
  std::string backend;
  int samples = 1;
  int turns = 1;
};

struct RunReport {
  std::string suite_name;
  std::filesystem::path suite_file;
  Device device;  // one device, or "cuda" for a run spread over several
  RunInfo run;    // command line, version, commit, start and finish
  nlohmann::json environment = nlohmann::json::object();
  std::size_t planned_jobs = 0;
  std::vector<JobResult> results;  // finished so far, in plan order
  // Problem id -> the suite's `degenerate_reason` for problems marked `degenerate: true`; every
  // report shows it next to those problems' results (docs/suite-format.md#degenerate-problems).
  std::map<std::string, std::string> degenerate_problems;
  std::optional<GenerationRun> generation;  // absent: candidates were files
};

// "degenerate problem: REASON" when `r`'s problem is marked degenerate in `report`, else "".
std::string degenerate_text(const RunReport& report, const JobResult& r);

// Results-file schema version "major.minor" (docs/results-format.md).
// 1.1: kbench_version, git_commit, command_line, finished_at (model/run_info.hpp).
inline constexpr const char* kResultsSchemaVersion = "1.1";

}  // namespace kbench
