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
// The run's largest GPU and host peaks (docs/memory.md), out-of-memory results and jobs run
// again alone; "" when no result has memory figures.
std::string memory_summary_line(const RunReport& report);

// The run's environment line: "NVIDIA H200 | torch 2.9.0 | triton 3.5.0 | CUDA 12.8 | driver
// 570.1". On the CPU the CUDA torch was built for and the (absent) driver are left out; empty
// fields are "-".
std::string environment_line(const nlohmann::json& environment, const Device& device);

// One progress line for a finished job (for logs while the run goes).
std::string progress_line(const JobResult& result, std::size_t done, std::size_t total);

}  // namespace kbench
