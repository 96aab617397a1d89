#pragma once
// Results of candidates a model wrote (docs/endpoints.md): the result of a reply without code,
// and the order reports list generated results in.
#include <functional>

#include "model/job_result.hpp"
#include "suite/suite.hpp"

namespace kbench {

// Status no_code for `job` (its candidate_file is the reply): no worker runs.
JobResult no_code_result(const Job& job);

// By the problem's place in `suite`, then sample, then turn: the reports' order, whatever order
// the evaluations finish in.
std::function<bool(const JobResult&, const JobResult&)> generated_order(const Suite& suite);

}  // namespace kbench
