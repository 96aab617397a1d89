#pragma once
// `kbench worker --validate`: checks a problem file on the device (lib/worker/problem_validation.py)
// for `kbench validate` (lib/run/problem_validator.cpp). No candidate is involved.
#include "model/job.hpp"
#include "model/problem_report.hpp"

namespace kbench {

// Each check's verdict, or the error when the validation itself could not run (the Python side's
// JSON read through the codec, model/codec.hpp). Python must be started.
ProblemReport validate_problem(const Job& job, bool inductor);

}  // namespace kbench
