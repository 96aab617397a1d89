#pragma once
// Cell texts shared by the human-readable formats (terminal, Markdown, HTML), so they agree.
#include <string>

#include "model/job_result.hpp"

namespace kbench {

// "1.2 us", "3.456 ms", "1.20 s", or "-" when `variant` was not timed.
std::string time_cell(const JobResult& r, const std::string& variant);
// "1.55x"; three significant digits for tiny or huge ratios (CPU interpreter).
std::string ratio(double x);
// "1.55x [1.53-1.57]": the point speedup and its 95% CI when there is one; "-" when none.
std::string speedup_cell(const JobResult& r, const std::string& baseline);
// The result's flags (diagnostics.flags: uncertain integrity findings) joined by "; ", or "".
std::string flags_text(const JobResult& r);
// The first line of `text`, cut to `width` characters with "...".
std::string shorten(const std::string& text, std::size_t width);

}  // namespace kbench
