#pragma once
// Everything a report shows about one run; every reporter reads only this.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/job_result.hpp"

namespace kbench {

struct RunReport {
  std::string suite_name;
  std::filesystem::path suite_file;
  std::string device;
  std::string started_at;  // UTC, ISO 8601
  nlohmann::json environment = nlohmann::json::object();
  std::size_t planned_jobs = 0;
  std::vector<JobResult> results;  // finished so far, in plan order
};

// Results-file schema version "major.minor" (docs/results-format.md).
inline constexpr const char* kResultsSchemaVersion = "1.0";

std::string utc_now_iso8601();

}  // namespace kbench
