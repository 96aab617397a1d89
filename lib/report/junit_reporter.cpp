// Ant-style JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test-report actions) read:
// a suite is a testsuite, a problem a class, a candidate a test case.
#include <fmt/format.h>

#include <sstream>

#include "core/version.hpp"
#include "report/cells.hpp"
#include "report/markup.hpp"
#include "report/report_formats.hpp"
#include "report/reporter.hpp"

namespace kbench {
namespace {

// A wrong answer is a test failure; a worker that died or hung is an error (the test did not
// finish), as JUnit distinguishes assertion failures from exceptions.
bool is_error(Status s) { return s == Status::timeout || s == Status::crashed; }

std::string env_value(const RunReport& report, const char* key, const std::string& fallback = "") {
  const auto it = report.environment.find(key);
  if (it == report.environment.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

class JunitReporter final : public Reporter {
  void do_write(const RunReport& report, std::ostream& out) const override { out << junit_report(report); }
};

}  // namespace

std::string junit_report(const RunReport& report) {
  std::size_t failures = 0, errors = 0;
  double time = 0;
  for (const auto& r : report.results) {
    if (is_error(r.status)) ++errors;
    else if (!is_correct(r.status)) ++failures;
    time += r.wall_s;
  }
  const auto tests = report.results.size();
  const std::string name = escape_xml(report.suite_name);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"kbench\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\">\n",
      tests, failures, errors, time);
  out << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\" timestamp=\"{}\">\n",
      name, tests, failures, errors, time, escape_xml(report.run.started_at));
  out << "    <properties>\n";
  const std::vector<std::pair<std::string, std::string>> properties = {
      {"device", to_string(report.device)},
      {"device_name", env_value(report, "device_name")},
      {"torch", env_value(report, "torch")},
      {"triton", env_value(report, "triton")},
      {"cuda", env_value(report, "cuda")},
      {"driver", env_value(report, "driver")},
      {"kbench_version", env_value(report, "kbench_version", kVersion)},
  };
  for (const auto& [key, value] : properties)
    out << fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", key, escape_xml(value));
  out << "    </properties>\n";
  for (const auto& r : report.results) {
    out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"",
                       escape_xml(r.job.problem_id), escape_xml(r.job.candidate), r.wall_s);
    std::string notes = flags_text(r).empty() ? "" : "flagged: " + flags_text(r);
    if (const auto degenerate = degenerate_text(report, r); !degenerate.empty())
      notes += (notes.empty() ? "" : "\n") + degenerate;
    const std::string system_out =
        notes.empty() ? "" : fmt::format("      <system-out>{}</system-out>\n", escape_xml(notes));
    if (is_correct(r.status)) {
      // Flags and a degenerate problem do not fail a test case; they are shown where CI
      // systems show test output.
      if (system_out.empty()) out << "/>\n";
      else out << ">\n" << system_out << "    </testcase>\n";
      continue;
    }
    const char* element = is_error(r.status) ? "error" : "failure";
    // The attribute is the one-line reason; the body keeps the whole message.
    out << fmt::format(">\n      <{0} type=\"{1}\" message=\"{2}\">{3}</{0}>\n{4}    </testcase>\n",
                       element, to_string(r.status), escape_xml(shorten(r.message, 200)),
                       escape_xml(r.message), system_out);
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

std::unique_ptr<Reporter> make_junit_reporter() { return std::make_unique<JunitReporter>(); }

}  // namespace kbench
