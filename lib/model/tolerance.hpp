#pragma once
// Default correctness tolerances per dtype (documented in docs/suite-format.md).
#include <string>
#include <vector>

namespace kbench {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// Tolerance for floating outputs of `dtype` unless the suite overrides atol/rtol. Integer and
// bool outputs are always compared exactly (correctness/output_comparison.cpp).
Tolerance default_tolerance(const std::string& dtype);

bool is_known_dtype(const std::string& dtype);
const std::vector<std::string>& known_dtypes();

}  // namespace kbench
