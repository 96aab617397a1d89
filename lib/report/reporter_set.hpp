#pragma once
// Several reporters, each bound to a file or "-" (stdout); nvbench's printer_multiplex with
// hyperfine's export rules: files are checked up front and rewritten after every job, stdout is
// written once at the end so a long run does not flood it.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "report/reporter.hpp"

namespace kbench {

struct OutputSpec {
  std::string format;  // one of reporter_formats()
  std::string path;    // a file, or "-" for stdout
};

class ReporterSet {
 public:
  // Throws InputError, before any work, for an unknown format, a file named twice, or a file
  // that cannot be written.
  explicit ReporterSet(const std::vector<OutputSpec>& outputs, std::ostream& stdout_stream = std::cout);
  // Rewrites every file output atomically (temp file + rename).
  void write(const RunReport& report) const;
  // The last rewrite of the files, then the "-" outputs.
  void finish(const RunReport& report) const;
  [[nodiscard]] bool empty() const { return outputs_.empty(); }

 private:
  struct Output {
    std::unique_ptr<Reporter> reporter;
    std::string path;
  };
  std::vector<Output> outputs_;
  std::ostream* stdout_;
};

}  // namespace kbench
