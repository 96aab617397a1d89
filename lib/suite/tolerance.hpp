#pragma once
// Default correctness tolerances per dtype (documented in docs/suite-format.md).
#include <string>
#include <vector>

namespace kbench {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// Tolerance for `dtype` unless the suite overrides atol/rtol. Integer and bool dtypes compare
// exactly (0, 0).
Tolerance default_tolerance(const std::string& dtype);

bool is_known_dtype(const std::string& dtype);
const std::vector<std::string>& known_dtypes();

}  // namespace kbench
