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

}  // namespace kbench
