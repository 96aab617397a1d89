#pragma once
// The documented range of every number kbench reads (suite YAML, command line, results JSON):
// one table, so the suite loader, the CLI and the results reader refuse the same values with
// the same words. Ranges are listed in docs/suite-format.md and docs/cli.md.
#include <string>
#include <string_view>

namespace kbench {

struct NumberRange {
  double min = 0;
  double max = 0;
  bool min_inclusive = true;
  bool max_inclusive = true;
  bool integer = false;
  [[nodiscard]] std::string str() const;  // "a number in (0, 604800]", "an integer in [1, 10000]"
};

// The range of a named number: a suite key (`timeout_s`, `seeds`, `target_ci`, ...), a CLI
// option (`--timeout`) or a results field (`samples_ms`). Throws std::logic_error for a name
// not in the table (a kbench bug).
const NumberRange& number_range(std::string_view name);

// "" when `value` is finite and inside `range`; otherwise what is wrong, e.g. "is not a number
// (NaN)", "is infinite", "must be in (0, 604800], got 1e+300".
std::string number_range_problem(double value, const NumberRange& range);

// Throws InputError("`name` <problem>") unless `value` is within number_range(name). `where`
// (e.g. "suite.yaml:3:14: ") prefixes the message.
double check_number(double value, std::string_view name, std::string_view where = "");

}  // namespace kbench
