#include "report/junit_xml.hpp"

#include <fmt/format.h>

#include "report/markup.hpp"

namespace kbench {
namespace {

std::string time_attribute(const std::optional<double>& time_s) {
  return time_s ? fmt::format(" time=\"{:.3f}\"", *time_s) : "";
}

std::string case_xml(const JunitCase& c) {
  using Outcome = JunitCase::Outcome;
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\"{}", escape_xml(c.classname),
                                escape_xml(c.name), time_attribute(c.time_s));
  std::string inner;
  if (c.outcome == Outcome::failure || c.outcome == Outcome::error) {
    const char* element = c.outcome == Outcome::error ? "error" : "failure";
    const auto head = fmt::format("<{} type=\"{}\" message=\"{}\"", element, escape_xml(c.type),
                                  escape_xml(c.message));
    inner += c.body.empty() ? fmt::format("      {}/>\n", head)
                            : fmt::format("      {}>{}</{}>\n", head, escape_xml(c.body), element);
  } else if (c.outcome == Outcome::skipped) {
    inner += fmt::format("      <skipped message=\"{}\"/>\n", escape_xml(c.message));
  }
  if (!c.system_out.empty())
    inner += fmt::format("      <system-out>{}</system-out>\n", escape_xml(c.system_out));
  if (inner.empty()) return out + "/>\n";
  return out + ">\n" + inner + "    </testcase>\n";
}

}  // namespace

std::string junit_xml(const JunitSuite& suite) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  for (const auto& c : suite.cases) {
    failures += c.outcome == JunitCase::Outcome::failure;
    errors += c.outcome == JunitCase::Outcome::error;
    skipped += c.outcome == JunitCase::Outcome::skipped;
  }
  const auto counts = fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}",
                                  suite.cases.size(), failures, errors, skipped,
                                  time_attribute(suite.time_s));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"kbench\" {}>\n", counts);
  out += fmt::format("  <testsuite name=\"{}\" {}{}>\n", escape_xml(suite.name), counts,
                     suite.timestamp.empty() ? "" : fmt::format(" timestamp=\"{}\"", escape_xml(suite.timestamp)));
  if (!suite.properties.empty()) {
    out += "    <properties>\n";
    for (const auto& [key, value] : suite.properties)
      out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", escape_xml(key), escape_xml(value));
    out += "    </properties>\n";
  }
  for (const auto& c : suite.cases) out += case_xml(c);
  return out + "  </testsuite>\n</testsuites>\n";
}

}  // namespace kbench
