#include "report/html_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/cells.hpp"
#include "report/svg_elements.hpp"
#include "report/summary_metrics.hpp"

namespace kbench {
namespace {

constexpr double kWidth = 720;

std::string open_svg(double height, const std::string& label) { return svg::open(kWidth, height, label); }
std::string empty_chart(const std::string& label, const std::string& why) {
  return svg::empty_chart(kWidth, label, why);
}
using svg::line;
using svg::text;
std::string bar(const char* css, double x, double y, double w, double h, const std::string& tip) {
  return svg::rect(css, x, y, w, h, tip);
}

std::string power_label(int k) { return fmt::format("{:g}x", std::ldexp(1.0, k)); }

// The speedup shown for a problem: its best correct candidate's (by vs Inductor, then eager).
const JobResult* best_candidate(const std::vector<const JobResult*>& results) {
  const JobResult* best = nullptr;
  auto key = [](const JobResult* r) {
    return std::make_pair(speedup_vs(*r, "inductor").value_or(0), speedup_vs(*r, "eager").value_or(0));
  };
  for (const auto* r : results)
    if (is_correct(r->status) && (!best || key(r) > key(best))) best = r;
  return best;
}

}  // namespace

std::string speedup_histogram_svg(const RunReport& report) {
  const std::string label = "Histogram of speedups vs Inductor over correct candidates";
  std::map<int, int> bins;  // floor(log2(speedup)) -> candidates
  for (const auto& r : report.results)
    if (const auto s = speedup_vs(r, "inductor"); s && *s > 0)
      ++bins[std::clamp(static_cast<int>(std::floor(std::log2(*s))), -10, 9)];
  if (bins.empty()) return empty_chart(label, "No correct candidate was timed against Inductor.");
  const int lo = std::min(bins.begin()->first, -1), hi = std::max(bins.rbegin()->first, 0);
  int most = 0;
  for (const auto& [k, n] : bins) most = std::max(most, n);
  const double left = 40, top = 40, plot_w = kWidth - left - 20, plot_h = 180;
  const double bin_w = plot_w / (hi - lo + 1);
  std::string svg = open_svg(top + plot_h + 46, label);
  svg += text(left, 16, "candidates per speedup-vs-Inductor bin", "start", "title");
  for (int k = lo; k <= hi; ++k) {
    const int n = bins.count(k) ? bins.at(k) : 0;
    const double x = left + (k - lo) * bin_w, h = plot_h * n / most;
    svg += bar(k < 0 ? "slower" : "faster", x + 2, top + plot_h - h, bin_w - 4, h,
               fmt::format("[{}, {}): {} candidate(s)", power_label(k), power_label(k + 1), n));
    if (n) svg += text(x + bin_w / 2, top + plot_h - h - 4, std::to_string(n));
    svg += text(x, top + plot_h + 16, power_label(k));
  }
  svg += text(left + plot_w, top + plot_h + 16, power_label(hi + 1));
  svg += line("axis", left, top + plot_h, left + plot_w, top + plot_h);
  const double one = left + (0 - lo) * bin_w;
  svg += line("one", one, top, one, top + plot_h);
  svg += text(left + plot_w / 2, top + plot_h + 38, "speedup vs Inductor (log2 bins; left of the line: slower)");
  return svg + "</svg>\n";
}

std::string level_bars_svg(const RunReport& report) {
  const std::string label = "pass@1 and beats-Inductor per level";
  const auto by_level = compute_summary(report.results).by_level;
  if (by_level.empty()) return empty_chart(label, "No results yet.");
  const double left = 40, top = 30, plot_w = kWidth - left - 20, plot_h = 160;
  const double group_w = plot_w / by_level.size(), bar_w = std::min(60.0, group_w * 0.35);
  std::string svg = open_svg(top + plot_h + 30, label);
  svg += bar("pass", left, 8, 12, 12, "pass@1") + text(left + 16, 18, "pass@1", "start");
  svg += bar("beats", left + 90, 8, 12, 12, "beats Inductor") +
         text(left + 106, 18, "beats Inductor (point)", "start");
  for (const double y : {0.0, 0.5, 1.0}) {
    svg += line(y == 0 ? "axis" : "grid", left, top + plot_h * (1 - y), left + plot_w, top + plot_h * (1 - y));
    svg += text(left - 4, top + plot_h * (1 - y) + 4, fmt::format("{:g}", y), "end");
  }
  std::size_t i = 0;
  for (const auto& [level, m] : by_level) {
    const double centre = left + group_w * (i++ + 0.5);
    auto draw = [&](const char* css, double x, std::optional<double> value, const char* what) {
      if (!value) {
        svg += text(x + bar_w / 2, top + plot_h - 4, "n/a");
        return;
      }
      const double h = plot_h * std::clamp(*value, 0.0, 1.0);
      svg += bar(css, x, top + plot_h - h, bar_w, h, fmt::format("level {} {}: {:.3f}", level, what, *value));
      svg += text(x + bar_w / 2, top + plot_h - h - 4, fmt::format("{:.2f}", *value));
    };
    draw("pass", centre - bar_w - 2, m.pass_at_1, "pass@1");
    draw("beats", centre + 2, m.beats_inductor, "beats Inductor");
    svg += text(centre, top + plot_h + 18, fmt::format("level {} ({} problems)", level, m.problems));
  }
  return svg + "</svg>\n";
}

std::string problem_bars_svg(const RunReport& report) {
  const std::string label = "Speedup vs eager and vs Inductor per problem";
  std::vector<std::string> order;
  std::map<std::string, std::vector<const JobResult*>> by_problem;
  for (const auto& r : report.results) {
    auto& list = by_problem[r.job.problem_id];
    if (list.empty()) order.push_back(r.job.problem_id);
    list.push_back(&r);
  }
  if (order.empty()) return empty_chart(label, "No results yet.");
  double reach = 1;  // the axis spans 2^-reach .. 2^reach
  for (const auto& r : report.results)
    for (const char* b : {"eager", "inductor"})
      if (const auto s = speedup_vs(r, b); s && *s > 0)
        reach = std::max(reach, std::ceil(std::abs(std::log2(*s))));
  reach = std::min(reach, 8.0);
  const double name_w = 170, top = 44, row_h = 30, plot_w = kWidth - name_w - 70;
  const double one = name_w + plot_w / 2, plot_h = row_h * order.size();
  auto x_of = [&](double s) { return one + std::clamp(std::log2(s), -reach, reach) / reach * plot_w / 2; };
  std::string svg = open_svg(top + plot_h + 24, label);
  svg += bar("eager", name_w, 8, 12, 12, "vs eager") + text(name_w + 16, 18, "vs eager", "start");
  svg += bar("inductor", name_w + 90, 8, 12, 12, "vs Inductor") +
         text(name_w + 106, 18, "vs Inductor (best correct candidate per problem)", "start");
  for (int k = -static_cast<int>(reach); k <= static_cast<int>(reach); ++k) {
    const double x = x_of(std::ldexp(1.0, k));
    svg += line(k == 0 ? "one" : "grid", x, top - 6, x, top + plot_h);
    svg += text(x, top - 10, power_label(k));
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const double y = top + row_h * i;
    svg += text(name_w - 8, y + row_h / 2 + 4, shorten(order[i], 24), "end");
    const JobResult* best = best_candidate(by_problem[order[i]]);
    if (!best) {
      svg += text(one + 8, y + row_h / 2 + 4, "no correct candidate", "start", "none");
      continue;
    }
    double bar_y = y + 4;
    for (const char* baseline : {"eager", "inductor"}) {
      if (const auto s = speedup_vs(*best, baseline)) {
        const double x = x_of(*s);
        svg += bar(baseline, std::min(x, one), bar_y, std::abs(x - one), 10,
                   fmt::format("{} / {}: {} vs {}", order[i], best->job.candidate, ratio(*s), baseline));
        svg += text(std::max(x, one) + 4, bar_y + 9, ratio(*s), "start", "value");
      }
      bar_y += 11;
    }
  }
  return svg + "</svg>\n";
}

}  // namespace kbench
