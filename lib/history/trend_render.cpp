#include "history/trend_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/compare_render.hpp"
#include "report/html_page.hpp"
#include "report/markup.hpp"
#include "report/svg_elements.hpp"

namespace kbench {
namespace {

constexpr double kWidth = 720, kHeight = 220;
constexpr double kLeft = 70, kRight = 150, kTop = 28, kBottom = 32;  // the legend sits right
const char* const kColours[] = {"s0", "s1", "s2", "s3", "s4", "s5"};

const char* const kTrendCss = R"(svg .series{fill:none;stroke-width:2}
svg .point{stroke:none}
svg .change-point{fill:none;stroke:#cf222e;stroke-width:2.5}
svg .s0{stroke:#4078c0;fill:#4078c0}svg .s1{stroke:#2da44e;fill:#2da44e}svg .s2{stroke:#bf8700;fill:#bf8700}
svg .s3{stroke:#8250df;fill:#8250df}svg .s4{stroke:#57606a;fill:#57606a}svg .s5{stroke:#e16f24;fill:#e16f24}
svg polyline.s0,svg polyline.s1,svg polyline.s2,svg polyline.s3,svg polyline.s4,svg polyline.s5{fill:none}
.gate-pass{color:#1a7f37}.gate-fail{color:#cf222e}
)";

std::string run_name(const StoredRun& run) { return run.label.empty() ? run.started_at : run.label; }

std::string value_text(double v, const std::string& unit) {
  if (unit == "ms") return v < 1 ? fmt::format("{:.3g} us", v * 1000) : fmt::format("{:.4g} ms", v);
  if (unit == "x") return fmt::format("{:.3g}x", v);
  return fmt::format("{:.3f}", v);
}

std::string gate_verdict(const GateResult& gate, double fail_percent) {
  if (!gate.comparison) return "not applied: " + gate.note;
  return gate.regression
             ? fmt::format("FAIL: {} has a candidate SLOWER by >= {:g}% or newly failing", gate.latest_label,
                           fail_percent)
             : fmt::format("pass: no candidate of {} is SLOWER by >= {:g}% or newly failing", gate.latest_label,
                           fail_percent);
}

}  // namespace

std::string trend_chart_svg(const TrendChart& chart, const std::vector<StoredRun>& runs) {
  double lo = INFINITY, hi = -INFINITY;
  bool log_scale = false;
  std::string unit;
  for (const auto& s : chart.series)
    for (const auto& v : s.values)
      if (v && (!s.log_scale || *v > 0)) lo = std::min(lo, *v), hi = std::max(hi, *v), log_scale = s.log_scale,
                                         unit = s.unit;
  if (!(lo <= hi)) return svg::empty_chart(kWidth, chart.title, "no values in these runs");
  auto tr = [&](double v) { return log_scale ? std::log(v) : v; };
  double a = tr(lo), b = tr(hi);
  if (unit.empty()) {
    a = 0, b = 1;  // pass@1: always the whole 0..1 scale
  } else if (b - a < std::log(1.25)) {
    // At least a 25% span, centred, so +-1% night-to-night noise looks as flat as it is.
    const double mid = (a + b) / 2, half = std::log(1.25) / 2;
    a = mid - half, b = mid + half;
  }
  const double pad = (b - a) * 0.08;
  a -= pad, b += pad;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](std::size_t i) {
    return kLeft + (runs.size() > 1 ? plot_w * double(i) / double(runs.size() - 1) : plot_w / 2);
  };
  auto y_of = [&](double v) { return kTop + plot_h * (1 - (tr(v) - a) / (b - a)); };

  std::string out = svg::open(kWidth, kHeight, chart.title);
  out += svg::text(kLeft, 16, chart.title + (log_scale ? " (log scale)" : ""), "start", "title");
  out += svg::line("axis", kLeft, kTop, kLeft, kTop + plot_h);
  out += svg::line("axis", kLeft, kTop + plot_h, kLeft + plot_w, kTop + plot_h);
  // Grid lines at the smallest and largest value.
  const bool apart = std::abs(y_of(lo) - y_of(hi)) > 14;  // else the two labels would overlap
  for (double v : apart ? std::vector<double>{lo, hi} : std::vector<double>{hi}) {
    out += svg::line("grid", kLeft, y_of(v), kLeft + plot_w, y_of(v));
    out += svg::text(kLeft - 6, y_of(v) + 4, value_text(v, unit), "end");
  }
  const std::size_t label_every = std::max<std::size_t>(1, runs.size() / 12);
  for (std::size_t i = 0; i < runs.size(); i += label_every)
    out += svg::text(x_of(i), kTop + plot_h + 16, fmt::format("#{}", i + 1));
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    const char* colour = kColours[k % std::size(kColours)];
    std::string points;
    for (std::size_t i = 0; i < s.values.size(); ++i)
      if (s.values[i]) points += fmt::format("{:.1f},{:.1f} ", x_of(i), y_of(*s.values[i]));
    if (!points.empty()) {
      points.pop_back();
      out += fmt::format("<polyline class=\"series {}\" points=\"{}\"/>\n", colour, points);
    }
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!s.values[i]) continue;
      const std::string tip = fmt::format("run #{} {}: {} {}{}", i + 1, run_name(runs[i]), s.name,
                                          value_text(*s.values[i], s.unit), s.changes[i] ? " (change point)" : "");
      out += fmt::format("<circle class=\"point {}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}</title></circle>\n",
                         colour, x_of(i), y_of(*s.values[i]), escape_xml(tip));
      if (s.changes[i])
        out += fmt::format("<circle class=\"change-point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"8\"><title>{}</title>"
                           "</circle>\n",
                           x_of(i), y_of(*s.values[i]), escape_xml(tip));
    }
    const double ly = kTop + 12 + 16 * double(k);
    out += svg::rect(colour, kWidth - kRight + 12, ly - 8, 10, 10, s.name);
    const bool empty = std::none_of(s.values.begin(), s.values.end(), [](const auto& v) { return v.has_value(); });
    std::string name = s.name.size() > 20 ? s.name.substr(0, 19) + "~" : s.name;
    if (empty) name += " (never ok)";
    out += svg::text(kWidth - kRight + 28, ly + 1, name, "start");
  }
  return out + "</svg>\n";
}

std::vector<std::string> change_point_lines(const Trend& trend) {
  std::vector<std::string> lines;
  auto scan = [&](const TrendChart& chart, const std::string& prefix) {
    for (const auto& s : chart.series)
      for (std::size_t i = 0; i < s.values.size(); ++i) {
        if (!s.changes[i]) continue;
        const auto median = rolling_median(s.values, i, trend.window);
        const double change = median && *median != 0 ? (*s.values[i] / *median - 1) * 100 : 0;
        lines.push_back(fmt::format("run #{} ({}): {}{} {}, {:+.1f}% vs the rolling median {}", i + 1,
                                    run_name(trend.runs[i]), prefix, s.name, value_text(*s.values[i], s.unit),
                                    change, median ? value_text(*median, s.unit) : "-"));
      }
  };
  scan(trend.pass_rate, "");
  scan(trend.speedups, "geomean speedup ");
  for (const auto& chart : trend.problems) scan(chart, chart.title.substr(0, chart.title.find(':')) + " / ");
  return lines;
}

std::string trend_html(const Trend& trend, const GateResult& gate, double fail_percent) {
  const std::string title = "kbench trend: " + trend.suite;
  std::string out = html_page_head(title, kTrendCss);
  out += "<h1>" + escape_xml(title) + "</h1>\n";
  out += fmt::format("<p class=\"summary {}\">Regression gate: {}</p>\n",
                     gate.regression ? "gate-fail" : "gate-pass", escape_xml(gate_verdict(gate, fail_percent)));
  const auto changes = change_point_lines(trend);
  out += "<h2>Change points</h2>\n";
  if (changes.empty()) out += "<p>none</p>\n";
  else {
    out += "<ul class=\"changes\">\n";
    for (const auto& c : changes) out += "<li>" + escape_xml(c) + "</li>\n";
    out += "</ul>\n";
  }
  out += "<h2>Suite</h2>\n" + trend_chart_svg(trend.pass_rate, trend.runs) + trend_chart_svg(trend.speedups, trend.runs);
  out += "<h2>Per problem</h2>\n";
  for (const auto& chart : trend.problems) out += trend_chart_svg(chart, trend.runs);
  out += "<h2>Runs</h2>\n<table class=\"results\">\n<tr><th>#</th><th>started</th><th>label</th><th>device</th>"
         "<th>torch</th><th>pass@1</th><th>correct</th></tr>\n";
  for (std::size_t i = 0; i < trend.runs.size(); ++i) {
    const auto& r = trend.runs[i];
    out += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                       "<td class=\"num\">{:.3f}</td><td class=\"num\">{}/{}</td></tr>\n",
                       i + 1, escape_xml(r.started_at), escape_xml(r.label), escape_xml(r.device_name),
                       escape_xml(r.torch), r.pass_at_1, r.correct, r.evaluations);
  }
  out += "</table>\n";
  if (gate.comparison) {
    out += "<h2>Gate: latest run vs the rolling baseline</h2>\n<pre>" +
           escape_xml(compare_table(*gate.comparison, fail_percent)) + "</pre>\n";
  }
  return out + "</body>\n</html>\n";
}

std::string trend_markdown(const Trend& trend, const GateResult& gate, double fail_percent) {
  std::string out = fmt::format("## kbench trend: {} ({} runs)\n\n", trend.suite, trend.runs.size());
  out += fmt::format("**Regression gate:** {}\n\n", gate_verdict(gate, fail_percent));
  if (!trend.runs.empty()) {
    const auto& last = trend.runs.back();
    out += "| metric | latest |\n|---|---|\n";
    out += fmt::format("| pass@1 | {:.3f} ({}/{}) |\n", last.pass_at_1, last.correct, last.evaluations);
    if (last.geomean_vs_eager) out += fmt::format("| geomean vs eager | {:.3g}x |\n", *last.geomean_vs_eager);
    if (last.geomean_vs_inductor)
      out += fmt::format("| geomean vs Inductor | {:.3g}x |\n", *last.geomean_vs_inductor);
    out += "\n";
  }
  const auto changes = change_point_lines(trend);
  out += "### Change points\n\n";
  if (changes.empty()) out += "none\n";
  for (const auto& c : changes) out += "- " + c + "\n";
  out += "\n";
  if (gate.comparison) out += "### Gate: latest run vs the rolling baseline\n\n" + compare_markdown(*gate.comparison, fail_percent);
  else if (!gate.note.empty()) out += "Gate: " + gate.note + "\n";
  return out;
}

}  // namespace kbench
