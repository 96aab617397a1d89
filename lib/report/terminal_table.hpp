#pragma once
// The table and summary line `kbench run` prints.
#include <string>

#include "report/run_report.hpp"

namespace kbench {

// One row per result: problem, candidate, status, candidate / eager / Inductor medians and the
// speedups, plus a short reason for failures.
std::string terminal_table(const RunReport& report);

// "pass@1 0.857 (6/7 correct) | beats Inductor 0.143 | geomean vs Inductor 0.91x ..."
std::string summary_line(const RunReport& report);

// One progress line for a finished job (for logs while the run goes).
std::string progress_line(const JobResult& result, std::size_t done, std::size_t total);

}  // namespace kbench
