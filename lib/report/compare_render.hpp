#pragma once
// What `kbench compare` prints and writes: a terminal table, Markdown for a CI job summary,
// JSON, and JUnit XML (one testcase per pair; docs/compare.md).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/compare.hpp"

namespace kbench {

// `fail_percent`: the --fail-on-regression threshold, when given, marks failing pairs.
std::string compare_table(const Comparison& comparison, std::optional<double> fail_percent);
std::string compare_summary_line(const Comparison& comparison);
std::string compare_markdown(const Comparison& comparison, std::optional<double> fail_percent);
nlohmann::json compare_json(const Comparison& comparison, std::optional<double> fail_percent);
std::string compare_junit(const Comparison& comparison, std::optional<double> fail_percent);

}  // namespace kbench
