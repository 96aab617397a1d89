#pragma once
// Decides in C++ whether candidate outputs match the reference: structure, dtype, shape, then
// values (allclose for floating point, exact for integer and bool).
#include <ATen/core/Tensor.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/tolerance.hpp"

namespace kbench {

struct ComparisonResult {
  bool ok = true;
  std::string reason;            // one line, when !ok
  int output_index = -1;         // which output failed
  double max_abs_error = 0;      // over all outputs compared
  double max_rel_error = 0;
  double mismatched_fraction = 0;  // of the failing output's elements
  int64_t first_bad_index = -1;    // flat index into the failing output
};

// compare_outputs' rule for one floating element, for callers that check a few elements one by
// one (integrity/sampled_comparison.cpp; tests/unit/test_output_comparison.cpp keeps the two equal).
inline bool floating_element_matches(double expected, double actual, const Tolerance& tolerance) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  return std::abs(actual - expected) <= tolerance.atol + tolerance.rtol * std::abs(expected);
}

// NaN in the candidate is accepted only where the reference has NaN at the same place; an Inf
// must equal the reference's Inf. Tensors need not be contiguous or on the CPU.
ComparisonResult compare_outputs(const std::vector<at::Tensor>& expected,
                                 const std::vector<at::Tensor>& actual, const Tolerance& tolerance);

}  // namespace kbench
