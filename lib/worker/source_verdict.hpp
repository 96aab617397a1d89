#pragma once
// The verdicts a candidate's source decides alone, asked right after the worker's Python starts:
// before `import torch`, the problem, the reference unit and, for native code, the job's other
// processes (docs/architecture.md, inside a worker). In an RL batch much of what comes back does
// not compile, defines no ModelNew or imports what the policy refuses; such a candidate then
// costs the interpreter's start and one parse, not a torch import and a reference run.
// Each verdict is the one the import and the checks after it give, word for word: the candidate
// unit reports a SyntaxError and a missing ModelNew through the same functions, and the rules
// through IntegrityMonitor::static_rejection.
#include <filesystem>
#include <optional>

#include <pybind11/pybind11.h>

#include "model/job.hpp"
#include "model/job_result.hpp"
#include "worker/verdict.hpp"

namespace kbench {

// The job's result when its source alone decides it, else nullopt. In the full evaluation's
// order: the file does not compile (compile_error), no statement can bind ModelNew
// (compile_error), then forbidden_api and no_custom_kernel (rejected) where the job's checks
// run them. Needs the interpreter (start_python()), not torch; runs no candidate code. What
// this cannot decide (an unreadable file, compile failures other than SyntaxError, an analysis
// error) decides nothing here: the evaluation finds it as it always has.
std::optional<JobResult> source_verdict(const Job& job);

// "the candidate failed to import: SyntaxError at FILE:LINE: MSG", with file, line and the
// error's own text (not the import machinery's frames, which differ between the two callers).
Verdict syntax_error_verdict(const pybind11::error_already_set& error, const std::filesystem::path& candidate_file);

// The import succeeded and the module has no `ModelNew`.
Verdict no_model_new_verdict();

}  // namespace kbench
