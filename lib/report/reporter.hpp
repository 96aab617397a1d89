#pragma once
// One output format of a run report (nvbench's printer_base: public call, private virtual).
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "report/run_report.hpp"

namespace kbench {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // The whole report, from scratch: outputs are rewritten after every job, never appended to.
  void write(const RunReport& report, std::ostream& out) const { do_write(report, out); }

 private:
  virtual void do_write(const RunReport& report, std::ostream& out) const = 0;
};

// "json", "md", "html", "junit", "csv" (the `kbench run` flag names).
const std::vector<std::string>& reporter_formats();
// Throws InputError for an unknown format.
std::unique_ptr<Reporter> make_reporter(const std::string& format);

std::unique_ptr<Reporter> make_json_reporter();
std::unique_ptr<Reporter> make_markdown_reporter();
std::unique_ptr<Reporter> make_csv_reporter();
std::unique_ptr<Reporter> make_junit_reporter();
std::unique_ptr<Reporter> make_html_reporter();

}  // namespace kbench
