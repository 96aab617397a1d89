// The results JSON (docs/results-format.md) as a reporter.
#include "report/reporter.hpp"
#include "report/results_json.hpp"

namespace kbench {
namespace {

class JsonReporter final : public Reporter {
  void do_write(const RunReport& report, std::ostream& out) const override {
    out << results_json(report).dump(2) << "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter() { return std::make_unique<JsonReporter>(); }

}  // namespace kbench
