#include "report/reporter.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kbench {

const std::vector<std::string>& reporter_formats() {
  static const std::vector<std::string> formats = {"json", "md", "html", "junit", "csv"};
  return formats;
}

std::unique_ptr<Reporter> make_reporter(const std::string& format) {
  if (format == "json") return make_json_reporter();
  if (format == "md") return make_markdown_reporter();
  if (format == "html") return make_html_reporter();
  if (format == "junit") return make_junit_reporter();
  if (format == "csv") return make_csv_reporter();
  throw InputError(fmt::format("unknown report format '{}'; use one of {}", format,
                               join(reporter_formats(), ", ")));
}

}  // namespace kbench
