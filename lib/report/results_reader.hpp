#pragma once
// Reads a results file (docs/results-format.md) back into a RunReport, for `kbench compare` and
// `kbench merge`. Only raw data is read; every statistic, CI and speedup is recomputed from the
// stored samples, so an edited or stale figure in the file can never reach a comparison.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "report/run_report.hpp"

namespace kbench {

// `source` names the input in error messages. Throws InputError "source: what is wrong" on a
// malformed file or a schema major version other than 1.
RunReport read_results_json(const nlohmann::json& json, const std::string& source);
RunReport read_results_file(const std::filesystem::path& file);

// One entry of "results" (or a journal line's "result"); `where` prefixes error messages.
// Throws InputError.
JobResult read_result_json(const nlohmann::json& json, const std::string& where,
                           const Device& device);

}  // namespace kbench
