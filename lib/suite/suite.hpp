#pragma once
// A benchmark suite as loaded from YAML (format: docs/suite-format.md).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/eval_settings.hpp"
#include "suite/generate_settings.hpp"

namespace kbench {

// Where something was written, for error messages ("file:line:col").
struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  [[nodiscard]] std::string str() const;
};

struct Problem {
  std::string id;
  std::filesystem::path file;  // absolute
  int level = 1;
  std::vector<std::string> tags;
  // Module-level constants of the problem file to override, per device kind ("cpu", "cuda"):
  // this is how one problem sizes itself small on the CPU and realistic on the GPU.
  std::map<std::string, nlohmann::json> sizes;
  // Constants for one more correctness trial at a second shape (same format as `sizes`).
  std::map<std::string, nlohmann::json> alt_sizes;
  std::vector<std::string> candidate_patterns;  // as written; `{id}` expands to the problem id
  // `degenerate: true` with its `degenerate_reason:`: the suite's authors know the problem cannot
  // tell a correct candidate from a trivial one (e.g. zeros pass it); every report says so.
  std::optional<std::string> degenerate_reason;
  EvalSettings settings;                        // defaults merged with the problem's overrides
  SourceLocation where;
};

struct Suite {
  std::string name;
  int schema_version = 1;
  std::filesystem::path file;  // absolute path of the YAML
  EvalSettings defaults;
  std::vector<Problem> problems;
  std::optional<GenerateSettings> generate;  // `generate:`: candidates come from a model endpoint
};

inline constexpr int kSuiteSchemaVersion = 1;

// Parses and validates a suite; throws InputError("file:line:col: what is wrong. what to do").
Suite load_suite(const std::filesystem::path& yaml_file);

}  // namespace kbench
