// Ant-style JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test-report actions) read:
// a suite is a testsuite, a problem a class, a candidate a test case.
#include <fmt/format.h>

#include "core/version.hpp"
#include "report/cells.hpp"
#include "report/junit_xml.hpp"
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
  JunitSuite suite;
  suite.name = report.suite_name;
  suite.timestamp = report.run.started_at;
  double time = 0;
  for (const auto& r : report.results) time += r.wall_s;
  suite.time_s = time;
  suite.properties = {
      {"device", to_string(report.device)},
      {"device_name", env_value(report, "device_name")},
      {"torch", env_value(report, "torch")},
      {"triton", env_value(report, "triton")},
      {"cuda", env_value(report, "cuda")},
      {"driver", env_value(report, "driver")},
      {"kbench_version", env_value(report, "kbench_version", kVersion)},
  };
  for (const auto& r : report.results) {
    JunitCase c;
    c.classname = r.job.problem_id;
    c.name = r.job.candidate;
    c.time_s = r.wall_s;
    // Flags and a degenerate problem do not fail a test case; they are shown where CI systems
    // show test output.
    c.system_out = flags_text(r).empty() ? "" : "flagged: " + flags_text(r);
    if (const auto degenerate = degenerate_text(report, r); !degenerate.empty())
      c.system_out += (c.system_out.empty() ? "" : "\n") + degenerate;
    if (!is_correct(r.status)) {
      c.outcome = is_error(r.status) ? JunitCase::Outcome::error : JunitCase::Outcome::failure;
      c.type = to_string(r.status);
      // The attribute is the one-line reason; the body keeps the whole message.
      c.message = shorten(r.message, 200);
      c.body = r.message;
    }
    suite.cases.push_back(std::move(c));
  }
  return junit_xml(suite);
}

std::unique_ptr<Reporter> make_junit_reporter() { return std::make_unique<JunitReporter>(); }

}  // namespace kbench
