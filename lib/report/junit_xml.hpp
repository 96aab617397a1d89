#pragma once
// The one JUnit XML writer (Ant-style, what GitLab, Jenkins and GitHub test-report actions read):
// the run report (`--junit`) and `kbench compare --junit` fill these and print through here, so
// both escape and count the same way.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbench {

struct JunitCase {
  enum class Outcome { passed, failure, error, skipped };
  std::string classname;
  std::string name;
  std::optional<double> time_s;
  Outcome outcome = Outcome::passed;
  std::string type;        // failure / error: the kind ("mismatch", "perf-regression")
  std::string message;     // failure / error / skipped: one line
  std::string body;        // failure / error: the whole text ("" = none)
  std::string system_out;  // notes CI systems show beside the case ("" = none)
};

struct JunitSuite {
  std::string name;
  std::optional<double> time_s;  // absent: no time attributes
  std::string timestamp;         // "" = none
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
};

// <testsuites name="kbench"> holding `suite`, with tests/failures/errors/skipped counted from
// its cases. Every text is escaped (candidate- and suite-controlled).
std::string junit_xml(const JunitSuite& suite);

}  // namespace kbench
