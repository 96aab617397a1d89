#pragma once
// `kbench worker --validate`: checks a problem file on the device (lib/worker/problem_validation.py)
// for `kbench validate` (lib/run/problem_validator.cpp). No candidate is involved.
#include <nlohmann/json.hpp>

#include "model/job.hpp"

namespace kbench {

// {"checks": [{"name", "ok", "detail"}], "peak_memory_bytes": N|null}, or {"error": "..."}
// when the validation itself could not run. Python must be started.
nlohmann::json validate_problem(const Job& job, bool inductor);

}  // namespace kbench
