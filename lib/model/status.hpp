#pragma once
// The outcome of one problem x candidate evaluation (docs/results-format.md lists each).
#include <optional>
#include <string>

namespace kbench {

enum class Status {
  ok,             // correct on every seed; timed
  compile_error,  // candidate file failed to import/build, or a kernel failed to compile
  runtime_error,  // candidate raised while running
  mismatch,       // ran, but outputs differ from the reference
  timeout,        // the worker exceeded its time limit and was killed
  crashed,        // the worker died (signal, exit) without delivering a result
  problem_error,  // the reference problem itself failed: not the candidate's fault
  rejected,       // an integrity check failed (diagnostics.integrity names it; docs/integrity.md)
  no_code,        // a model's reply held no code to evaluate (docs/endpoints.md); the reply is kept
};

std::string to_string(Status status);
std::optional<Status> status_from_string(const std::string& text);
// A candidate counts as correct only with status ok.
inline bool is_correct(Status status) { return status == Status::ok; }

}  // namespace kbench
