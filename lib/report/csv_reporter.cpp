// One CSV row per problem x candidate (RFC 4180: CRLF rows, fields quoted when they hold a
// comma, quote or line break; quotes doubled).
#include <fmt/format.h>

#include <sstream>

#include "core/text.hpp"
#include "report/cells.hpp"
#include "report/report_formats.hpp"
#include "report/reporter.hpp"

namespace kbench {
namespace {

std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(const std::optional<double>& value) {
  return value ? fmt::format("{}", *value) : "";
}

std::optional<double> median_ms(const JobResult& r, const std::string& variant) {
  const auto it = r.timings.find(variant);
  if (it == r.timings.end()) return std::nullopt;
  return it->second.headline_ms();
}

// value, ci_low, ci_high, verdict; empty fields when there is no speedup.
std::vector<std::string> speedup_fields(const JobResult& r, const std::string& baseline) {
  const auto it = r.speedups.find(baseline);
  if (it == r.speedups.end()) return {"", "", "", ""};
  const auto& s = it->second;
  return {number(s.value), s.ci ? number(s.ci->low) : "", s.ci ? number(s.ci->high) : "",
          s.verdict ? to_string(*s.verdict) : ""};
}

void write_row(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << field(fields[i]);
  out << "\r\n";
}

class CsvReporter final : public Reporter {
  void do_write(const RunReport& report, std::ostream& out) const override { out << csv_report(report); }
};

}  // namespace

std::string csv_report(const RunReport& report) {
  std::ostringstream out;
  write_row(out, {"problem", "candidate", "level", "tags", "status", "candidate_ms", "eager_ms",
                  "inductor_ms", "speedup_vs_eager", "speedup_vs_eager_ci_low",
                  "speedup_vs_eager_ci_high", "verdict_vs_eager", "speedup_vs_inductor",
                  "speedup_vs_inductor_ci_low", "speedup_vs_inductor_ci_high",
                  "verdict_vs_inductor", "message", "flags", "degenerate_reason"});
  for (const auto& r : report.results) {
    std::vector<std::string> fields = {r.job.problem_id,
                                       r.job.candidate,
                                       std::to_string(r.job.level),
                                       join(r.job.tags, ";"),
                                       to_string(r.status),
                                       number(median_ms(r, "candidate")),
                                       number(median_ms(r, "eager")),
                                       number(median_ms(r, "inductor"))};
    for (const char* baseline : {"eager", "inductor"})
      for (auto& f : speedup_fields(r, baseline)) fields.push_back(std::move(f));
    fields.push_back(r.message);
    fields.push_back(flags_text(r));
    const auto degenerate = report.degenerate_problems.find(r.job.problem_id);
    fields.push_back(degenerate == report.degenerate_problems.end() ? "" : degenerate->second);
    write_row(out, fields);
  }
  return out.str();
}

std::unique_ptr<Reporter> make_csv_reporter() { return std::make_unique<CsvReporter>(); }

}  // namespace kbench
