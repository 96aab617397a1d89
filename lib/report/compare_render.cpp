#include "report/compare_render.hpp"

#include "report/cells.hpp"
#include "report/junit_xml.hpp"
#include "report/text_table.hpp"

#include <fmt/format.h>

#include <array>
#include <map>

namespace kbench {
namespace {

std::string ms_cell(const std::optional<double>& ms) {
  if (!ms) return "-";
  if (*ms < 1) return fmt::format("{:.1f} us", *ms * 1000);
  return fmt::format("{:.3f} ms", *ms);
}

std::string percent(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

// "+10.0% [+9.1%, +11.2%]" for timed pairs; the status change otherwise.
std::string change_cell(const PairChange& p) {
  if (p.kind != PairKind::compared) {
    auto status = [](const std::optional<Status>& s) { return s ? to_string(*s) : std::string("-"); };
    return status(p.base_status) + " -> " + status(p.new_status);
  }
  if (!p.time_ratio) return "untimed";
  if (!p.time_ratio_ci) return percent(*p.time_ratio);
  return fmt::format("{} [{}, {}]", percent(*p.time_ratio), percent(p.time_ratio_ci->low),
                     percent(p.time_ratio_ci->high));
}

std::string class_cell(const PairChange& p) {
  if (p.kind != PairKind::compared) return to_string(p.kind);
  return p.verdict ? to_string(*p.verdict) : "-";
}

std::string speedup_cell(const PairChange& p) {
  if (!p.speedup_change) return "-";
  // ratio(): significant digits for the tiny speedups of the CPU interpreter (not "0.00x").
  return ratio(*p.base_speedup) + " -> " + ratio(*p.new_speedup);
}

std::vector<std::vector<std::string>> rows(const Comparison& c, std::optional<double> fail) {
  std::vector<std::vector<std::string>> out;
  for (const auto& p : c.pairs)
    out.push_back({p.problem, p.candidate, ms_cell(p.base_ms), ms_cell(p.new_ms), change_cell(p),
                   class_cell(p), speedup_cell(p), fail && is_regression(p, *fail) ? "FAIL" : ""});
  return out;
}

std::vector<std::string> header(const Comparison& c) {
  return {"problem", "candidate", "base", "new", "time change [95% CI]", "class",
          "vs " + c.baseline, ""};
}

std::string optional_figure(const std::optional<double>& x, const char* spec) {
  return x ? fmt::format(spec, *x) : std::string("n/a");
}

// (label, base, new) for the summary deltas.
std::vector<std::array<std::string, 3>> summary_rows(const Comparison& c) {
  const auto& b = c.base_summary;
  const auto& n = c.new_summary;
  return {{"pass@1", fmt::format("{:.3f}", b.pass_at_1), fmt::format("{:.3f}", n.pass_at_1)},
          {"beats Inductor", optional_figure(b.beats_inductor, "{:.3f}"),
           optional_figure(n.beats_inductor, "{:.3f}")},
          {"geomean vs Inductor", optional_figure(b.geomean_speedup_vs_inductor, "{:.3f}x"),
           optional_figure(n.geomean_speedup_vs_inductor, "{:.3f}x")}};
}

nlohmann::json optional_json(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(); }

}  // namespace

std::string compare_table(const Comparison& c, std::optional<double> fail) {
  // problem, candidate, class and the FAIL mark are text; times and changes are numbers.
  TextTable table(header(c), {false, false, true, true, true, false, true, false});
  for (auto& row : rows(c, fail)) table.add_row(std::move(row));
  return table.str();
}

std::string compare_summary_line(const Comparison& c) {
  std::map<std::string, int> counts;
  for (const auto& p : c.pairs) counts[class_cell(p)]++;
  std::string classes;
  for (const auto& [name, n] : counts) classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", n, name);
  std::string figures;
  for (const auto& [label, b, n] : summary_rows(c)) figures += fmt::format(" | {} {} -> {}", label, b, n);
  return classes + figures;
}

std::string compare_markdown(const Comparison& c, std::optional<double> fail) {
  std::string out = "## kbench compare\n\n| figure | base | new |\n|---|---:|---:|\n";
  for (const auto& [label, b, n] : summary_rows(c)) out += fmt::format("| {} | {} | {} |\n", label, b, n);
  if (fail)
    out += fmt::format("\n**{}** (--fail-on-regression {}%)\n",
                       has_regression(c, *fail) ? "Regression" : "No regression", *fail);
  auto head = header(c);
  head.back() = "regression";
  out += "\n<details open><summary>Per candidate</summary>\n\n|";
  for (const auto& h : head) out += " " + h + " |";
  out += "\n|";
  for (std::size_t i = 0; i < head.size(); ++i) out += i < 2 ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : rows(c, fail)) {
    out += "|";
    for (const auto& cell : row) out += " " + cell + " |";
    out += "\n";
  }
  return out + "\n</details>\n";
}

nlohmann::json compare_json(const Comparison& c, std::optional<double> fail) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : c.pairs) {
    auto status = [](const std::optional<Status>& s) { return s ? nlohmann::json(to_string(*s)) : nlohmann::json(); };
    pairs.push_back(
        {{"problem", p.problem},
         {"candidate", p.candidate},
         {"kind", to_string(p.kind)},
         {"base_status", status(p.base_status)},
         {"new_status", status(p.new_status)},
         {"base_ms", optional_json(p.base_ms)},
         {"new_ms", optional_json(p.new_ms)},
         {"time_ratio", optional_json(p.time_ratio)},
         {"time_ratio_ci", p.time_ratio_ci ? nlohmann::json::array({p.time_ratio_ci->low, p.time_ratio_ci->high})
                                           : nlohmann::json()},
         {"class", p.verdict ? nlohmann::json(to_string(*p.verdict)) : nlohmann::json()},
         {"base_speedup", optional_json(p.base_speedup)},
         {"new_speedup", optional_json(p.new_speedup)},
         {"speedup_change", optional_json(p.speedup_change)},
         {"regression", fail ? nlohmann::json(is_regression(p, *fail)) : nlohmann::json()}});
  }
  auto figures = [](const SummaryMetrics& m) {
    return nlohmann::json{{"pass_at_1", m.pass_at_1},
                          {"beats_inductor", optional_json(m.beats_inductor)},
                          {"geomean_speedup_vs_inductor", optional_json(m.geomean_speedup_vs_inductor)}};
  };
  return {{"baseline", c.baseline},
          {"fail_on_regression_percent", optional_json(fail)},
          {"regression", fail ? nlohmann::json(has_regression(c, *fail)) : nlohmann::json()},
          {"summary", {{"base", figures(c.base_summary)}, {"new", figures(c.new_summary)}}},
          {"pairs", pairs}};
}

std::string compare_junit(const Comparison& c, std::optional<double> fail) {
  JunitSuite suite;
  suite.name = "kbench compare";
  for (const auto& p : c.pairs) {
    JunitCase junit_case;
    junit_case.classname = p.problem;
    junit_case.name = p.candidate;
    junit_case.message = change_cell(p) + " " + class_cell(p);
    if (fail && is_regression(p, *fail)) {
      junit_case.outcome = JunitCase::Outcome::failure;
      junit_case.type = p.kind == PairKind::newly_failing ? "newly-failing" : "perf-regression";
    } else if (p.kind == PairKind::added || p.kind == PairKind::removed) {
      junit_case.outcome = JunitCase::Outcome::skipped;
    }
    suite.cases.push_back(std::move(junit_case));
  }
  return junit_xml(suite);
}

}  // namespace kbench
