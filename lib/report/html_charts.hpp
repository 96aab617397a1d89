#pragma once
// The inline SVG charts of the HTML report, drawn here so the page needs no script or network.
// Each chart always holds at least one <rect> (its frame), even with no data.
#include <string>

#include "report/run_report.hpp"

namespace kbench {

// Histogram of speedups vs Inductor over correct candidates, one bin per power of two.
std::string speedup_histogram_svg(const RunReport& report);
// Per level: pass@1 and beats-Inductor bars on a 0..1 scale.
std::string level_bars_svg(const RunReport& report);
// Per problem, its best correct candidate: speedup vs eager and vs Inductor on a log2 axis
// centred on a 1x line.
std::string problem_bars_svg(const RunReport& report);

}  // namespace kbench
