#include "report/reporter_set.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "report/results_json.hpp"

namespace kbench {
namespace {

bool is_stdout(const std::string& path) { return path == "-"; }

}  // namespace

ReporterSet::ReporterSet(const std::vector<OutputSpec>& outputs, std::ostream& stdout_stream)
    : stdout_(&stdout_stream) {
  std::set<std::string> files;
  for (const auto& spec : outputs) {
    auto reporter = make_reporter(spec.format);
    if (!is_stdout(spec.path)) {
      const auto key = std::filesystem::absolute(spec.path).lexically_normal().string();
      if (!files.insert(key).second)
        throw InputError(fmt::format("{}: named by two output options; give each its own file",
                                     spec.path));
      check_writable(spec.path);
    }
    outputs_.push_back({std::move(reporter), spec.path});
  }
}

void ReporterSet::write(const RunReport& report) const {
  for (const auto& o : outputs_)
    if (!is_stdout(o.path))
      write_file_atomically(o.path, [&](std::ostream& out) { o.reporter->write(report, out); });
}

void ReporterSet::finish(const RunReport& report) const {
  write(report);
  for (const auto& o : outputs_)
    if (is_stdout(o.path)) o.reporter->write(report, *stdout_);
  stdout_->flush();
}

}  // namespace kbench
