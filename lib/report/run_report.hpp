#pragma once
// Everything a report shows about one run; every reporter reads only this.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/job_result.hpp"

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
  std::string device;
  std::string started_at;  // UTC, ISO 8601
  nlohmann::json environment = nlohmann::json::object();
  std::size_t planned_jobs = 0;
  std::vector<JobResult> results;  // finished so far, in plan order
  std::optional<GenerationRun> generation;  // absent: candidates were files
};

// Results-file schema version "major.minor" (docs/results-format.md).
inline constexpr const char* kResultsSchemaVersion = "1.0";

std::string utc_now_iso8601();

}  // namespace kbench
