#pragma once
// The verdict on one correctness trial's outputs, wherever they are compared: in the candidate's
// process (candidate_unit.cpp) or, for a blinded candidate, in the trusted judge (judge.cpp).
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "correctness/trivial_output.hpp"
#include "model/tolerance.hpp"
#include "worker/trial.hpp"

namespace kbench {

struct ErrorBounds {
  double max_abs_error = 0;
  double max_rel_error = 0;
};

// "seed trial, seed 1000": how verdicts name a trial.
std::string trial_name(const Trial& trial);

// Compares `actual` (flattened outputs) with the trial's expected outputs and widens `bounds`;
// throws the Verdict a wrong trial earns (mismatch; rejected post_timing_recheck). With
// `trivial_output_check`, an output the tolerance cannot tell from zeros must also match within
// 5% of its largest expected value (correctness/trivial_output.hpp): a mismatch otherwise.
void judge_trial_outputs(const Trial& trial, const std::vector<at::Tensor>& actual, const Tolerance& tolerance,
                         ErrorBounds& bounds, bool trivial_output_check);

// Per output, the tolerance of calls judged on sampled elements (correctness/trivial_output.hpp,
// sampled_call_tolerances) from the seed trials of `trials`; `tolerance` for every output without
// `trivial_output_check`.
CallTolerances call_tolerances(const std::vector<Trial>& trials, const Tolerance& tolerance, bool trivial_output_check);

}  // namespace kbench
