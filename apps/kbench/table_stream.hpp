#pragma once
// Where a command prints its table and summary for people: stdout, unless a report goes to
// stdout ("-" as an output path), then stderr, so stdout stays machine-readable. One rule for
// `run`, `compare` and `merge` (docs/cli.md).
#include <cstdio>
#include <string>
#include <vector>

namespace kbench::cli {

inline std::FILE* table_stream(const std::vector<std::string>& output_paths) {
  for (const auto& path : output_paths)
    if (path == "-") return stderr;
  return stdout;
}

}  // namespace kbench::cli
