#pragma once
// Each format as text (formats: docs/reports.md). The reporters wrap these.
#include <cstddef>
#include <string>

#include "report/run_report.hpp"

namespace kbench {

struct MarkdownLimits {
  std::size_t table_rows = 50;        // rows past this go inside <details>
  std::size_t max_bytes = 1 << 20;    // GitHub's job-summary limit is 1 MiB
};

std::string markdown_report(const RunReport& report, const MarkdownLimits& limits = {});
std::string csv_report(const RunReport& report);
std::string junit_report(const RunReport& report);
std::string html_report(const RunReport& report);

}  // namespace kbench
