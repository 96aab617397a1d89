#pragma once
// Outputs that the suite's tolerance cannot tell from zeros (KernelBench issue #165: returning
// zeros passes its 23_Softmax, 37_FrobeniusNorm, 39_L2Norm and 53_Min at full size). Where every
// expected value of a floating output lies within the tolerance of zero, allclose says nothing
// about that output; the `trivial_output` check then compares it again with atol = 5% of its
// largest expected |value| and rtol 0. Zeros miss by all of it, a constant by the output's
// spread; honest kernels miss by rounding (bf16's own is 0.4%).
#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "model/tolerance.hpp"

namespace kbench {

inline constexpr double kTrivialOutputFraction = 0.05;

// The largest |value| of a floating tensor where it is (a reduction, no full-size temporary);
// -1 for integer, bool or empty tensors and where a value is not finite.
double largest_magnitude(const at::Tensor& t);

// Why `actual` only matches `expected` as zeros would, or nothing. `expected_max_abs`: per output,
// largest_magnitude of the expected output (taken where it was computed).
std::optional<std::string> trivial_match(const std::vector<at::Tensor>& expected,
                                         const std::vector<double>& expected_max_abs,
                                         const std::vector<at::Tensor>& actual, const Tolerance& tolerance);

// The tolerances of calls judged on sampled elements only (the timed-call check, the judge's
// openings, the timing witness). Where every seed trial showed output i within the tolerance of
// zero, its calls are compared within 5% of the largest |value| the trials saw, rtol 0 (tighter
// than the suite's there, so it replaces it): a candidate honest on the trials and returning zeros
// on timed calls would otherwise pass every sampled comparison on such a problem.
struct CallTolerances {
  Tolerance suite;
  std::vector<Tolerance> outputs;  // per output; an output past the end has the suite's

  [[nodiscard]] const Tolerance& at(std::size_t output) const {
    return output < outputs.size() ? outputs[output] : suite;
  }
  // What a failure under output's tolerance adds to its message ("" for the suite's own).
  [[nodiscard]] std::string note(std::size_t output) const;
};

// From the seed trials' largest |values| (`trial_max_abs[t][i]`, largest_magnitude's).
CallTolerances sampled_call_tolerances(const std::vector<std::vector<double>>& trial_max_abs, std::size_t outputs,
                                       const Tolerance& tolerance);

}  // namespace kbench
