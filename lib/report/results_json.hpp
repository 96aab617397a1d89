#pragma once
// The results file (format: docs/results-format.md).
#include <filesystem>
#include <functional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "model/codec.hpp"  // result_json: one entry of "results"
#include "report/run_report.hpp"

namespace kbench {

nlohmann::json results_json(const RunReport& report);

// Writes `file` through `write` into a temp file, then renames it over `file`: a reader never
// sees half a file, and an interrupted run leaves the last complete version.
void write_file_atomically(const std::filesystem::path& file,
                           const std::function<void(std::ostream&)>& write);

// Writes atomically (temp file + rename), so a reader never sees half a file and an interrupted
// run leaves the last complete version. Throws std::runtime_error on I/O failure.
void write_results_json(const RunReport& report, const std::filesystem::path& file);

// Fails fast, before any work starts, when `file` cannot be written.
void check_writable(const std::filesystem::path& file);

}  // namespace kbench
