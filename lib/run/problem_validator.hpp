#pragma once
// `kbench validate SUITE.yaml`: is each problem a sound benchmark on this device? Each problem is
// checked in its own sandboxed worker (`kbench worker --validate`; the checks are in
// lib/worker/problem_validation.py): it imports, runs, is deterministic, reports its peak memory,
// compiles under Inductor, depends on its input, and is not passed by zeros or a constant
// (KernelBench issue #165). Documented in docs/cli.md#kbench-validate.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/problem_report.hpp"
#include "run/selection.hpp"

namespace kbench {

struct ProblemValidationOptions {
  std::filesystem::path suite_file;
  std::string device = "auto";
  ProblemSelection selection;
  bool inductor = true;  // false: skip the Inductor check (it compiles: slow on the CPU)
  std::optional<std::filesystem::path> work_dir;  // default: a fresh temp dir, removed after
  std::function<void(const std::string&)> log;    // each problem's line as it is checked
};

struct ProblemValidation {
  std::string id;
  bool ok = false;
  // Failed checks that only say the problem is degenerate (input-independent, zeros or a
  // constant pass): a problem the suite marks `degenerate: true` does not fail on them.
  bool known_degenerate = false;
  std::vector<std::string> failures;  // "check: detail"
  ProblemReport report;               // the worker's checks, or the error that stopped them
  std::uint64_t peak_host_memory_bytes = 0;
  double wall_s = 0;
};

// One line: id, ok / FAIL, peak memory, and what failed (or the determinism and Inductor notes).
std::string validation_line(const ProblemValidation& v);

// Throws InputError / EnvironmentError before any problem runs when the suite, the selection,
// the device or the Python environment is unusable.
std::vector<ProblemValidation> validate_suite(const ProblemValidationOptions& options);

}  // namespace kbench
