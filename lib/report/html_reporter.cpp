// One self-contained HTML page: summary, three inline SVG charts, the results table. No script,
// no external stylesheet or font, so it opens offline and as a CI artifact.
#include <fmt/format.h>

#include <sstream>

#include "report/cells.hpp"
#include "report/html_charts.hpp"
#include "report/html_page.hpp"
#include "report/markup.hpp"
#include "report/report_formats.hpp"
#include "report/reporter.hpp"
#include "report/terminal_table.hpp"

namespace kbench {
namespace {

std::string results_table(const RunReport& report) {
  std::string out =
      "<table class=\"results\">\n<tr><th>problem</th><th>candidate</th><th>level</th>"
      "<th>status</th><th>candidate</th><th>eager</th><th>inductor</th><th>vs eager</th>"
      "<th>vs inductor</th><th>message</th></tr>\n";
  for (const auto& r : report.results) {
    std::string message = r.message;
    for (const auto& note : {flags_text(r).empty() ? "" : "flagged: " + flags_text(r), degenerate_text(report, r)})
      if (!note.empty()) message += (message.empty() ? "" : " ") + note;
    out += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"status\">{}"
        "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"msg\">{}</td></tr>\n",
        is_correct(r.status) ? "ok" : "fail", escape_xml(r.job.problem_id),
        escape_xml(r.job.candidate), r.job.level, to_string(r.status),
        escape_xml(time_cell(r, "candidate")), escape_xml(time_cell(r, "eager")),
        escape_xml(time_cell(r, "inductor")), escape_xml(speedup_cell(r, "eager")),
        escape_xml(speedup_cell(r, "inductor")),
        escape_xml(message));
  }
  return out + "</table>\n";
}

std::string meta_table(const RunReport& report) {
  std::string out = "<table class=\"meta\">\n";
  auto row = [&](const std::string& key, const std::string& value) {
    out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape_xml(key), escape_xml(value));
  };
  row("suite file", report.suite_file.string());
  row("device", to_string(report.device));
  row("started", report.run.started_at);
  row("evaluations", fmt::format("{} of {}", report.results.size(), report.planned_jobs));
  for (const auto& [key, value] : report.environment.items())
    row(key, value.is_string() ? value.get<std::string>() : value.dump());
  return out + "</table>\n";
}

class HtmlReporter final : public Reporter {
  void do_write(const RunReport& report, std::ostream& out) const override { out << html_report(report); }
};

}  // namespace

std::string html_report(const RunReport& report) {
  const std::string title = "kbench: " + report.suite_name;
  std::ostringstream out;
  out << html_page_head(title);
  out << "<h1>" << escape_xml(title) << "</h1>\n";
  out << "<p class=\"summary\">" << escape_xml(summary_line(report)) << "</p>\n";
  if (report.results.size() < report.planned_jobs)
    out << fmt::format("<p><strong>Partial:</strong> {} of {} evaluations finished.</p>\n",
                       report.results.size(), report.planned_jobs);
  out << meta_table(report);
  out << "<h2>Speedup vs Inductor (correct candidates)</h2>\n" << speedup_histogram_svg(report);
  out << "<h2>pass@1 and beats-Inductor per level</h2>\n" << level_bars_svg(report);
  out << "<h2>Speedup per problem</h2>\n" << problem_bars_svg(report);
  out << "<h2>Results</h2>\n" << results_table(report);
  out << "</body>\n</html>\n";
  return out.str();
}

std::unique_ptr<Reporter> make_html_reporter() { return std::make_unique<HtmlReporter>(); }

}  // namespace kbench
