#pragma once
// What `kbench history trend` writes: a self-contained HTML page with inline SVG line charts
// (change points as red rings), and Markdown for a CI job summary. Both end with the gate.
#include <string>

#include "history/rolling_gate.hpp"
#include "history/trend.hpp"

namespace kbench {

// One inline <svg> line chart; every chart holds a frame <rect>, each series a <polyline> and
// a <circle> per point, a change point also <circle class="change-point">.
std::string trend_chart_svg(const TrendChart& chart, const std::vector<StoredRun>& runs);

std::string trend_html(const Trend& trend, const GateResult& gate, double fail_percent);
std::string trend_markdown(const Trend& trend, const GateResult& gate, double fail_percent);

// The change points of every chart, one line each ("run #10 (label): p1 / x.py 1.5 ms, +50% vs
// the rolling median 1.0 ms"), for the terminal and the Markdown.
std::vector<std::string> change_point_lines(const Trend& trend);

}  // namespace kbench
