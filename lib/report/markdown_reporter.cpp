// A Markdown summary that fits a CI job summary ($GITHUB_STEP_SUMMARY): summary first, then the
// table; long tables fold into <details>, and the whole stays under the 1 MiB limit.
#include <fmt/format.h>

#include "report/cells.hpp"
#include "report/report_formats.hpp"
#include "report/reporter.hpp"
#include "report/terminal_table.hpp"

namespace kbench {
namespace {

// A table cell: one line, no pipe that would end the cell, no HTML that GitHub would render.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string row(const RunReport& report, const JobResult& r) {
  std::string note = is_correct(r.status) ? "" : shorten(r.message, 160);
  if (const auto flags = flags_text(r); !flags.empty())
    note += (note.empty() ? "" : " ") + std::string("flagged: ") + shorten(flags, 160);
  if (const auto degenerate = degenerate_text(report, r); !degenerate.empty())
    note += (note.empty() ? "" : " ") + shorten(degenerate, 160);
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(r.job.problem_id),
                     cell(r.job.candidate), to_string(r.status), time_cell(r, "candidate"),
                     time_cell(r, "eager"), time_cell(r, "inductor"), speedup_cell(r, "eager"),
                     speedup_cell(r, "inductor"), cell(note));
}

const char* kHeader =
    "| problem | candidate | status | candidate | eager | inductor | vs eager | vs inductor | note |\n"
    "|---|---|---|--:|--:|--:|--:|--:|---|\n";
// Room kept for closing </details> and the truncation note.
constexpr std::size_t kTailReserve = 512;

class MarkdownReporter final : public Reporter {
  void do_write(const RunReport& report, std::ostream& out) const override {
    out << markdown_report(report);
  }
};

}  // namespace

std::string markdown_report(const RunReport& report, const MarkdownLimits& limits) {
  std::string out = fmt::format("### kbench: suite `{}` on {}\n\n", cell(report.suite_name),
                                cell(to_string(report.device)));
  out += "**" + cell(summary_line(report)) + "**\n\n";
  const std::size_t total = report.results.size();
  if (total < report.planned_jobs)
    out += fmt::format("_Partial: {} of {} evaluations finished._\n\n", total, report.planned_jobs);
  out += kHeader;
  bool folded = false;
  std::size_t shown = 0;
  for (; shown < total; ++shown) {
    std::string next;
    if (shown == limits.table_rows) {
      next = fmt::format("\n<details><summary>{} more results</summary>\n\n{}", total - shown, kHeader);
      folded = true;
    }
    next += row(report, report.results[shown]);
    if (out.size() + next.size() + kTailReserve > limits.max_bytes) {
      if (shown == limits.table_rows) folded = false;  // the fold was not written
      break;
    }
    out += next;
  }
  if (folded) out += "\n</details>\n";
  if (shown < total)
    out += fmt::format(
        "\n_Truncated: {} of {} results shown, to stay under {} bytes; the JSON report has them "
        "all._\n",
        shown, total, limits.max_bytes);
  return out;
}

std::unique_ptr<Reporter> make_markdown_reporter() { return std::make_unique<MarkdownReporter>(); }

}  // namespace kbench
