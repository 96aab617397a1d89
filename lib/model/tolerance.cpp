#include "model/tolerance.hpp"

#include <algorithm>

namespace kbench {

const std::vector<std::string>& known_dtypes() {
  static const std::vector<std::string> dtypes = {"float32", "float16", "bfloat16", "float64"};
  return dtypes;
}

bool is_known_dtype(const std::string& dtype) {
  const auto& all = known_dtypes();
  return std::find(all.begin(), all.end(), dtype) != all.end();
}

Tolerance default_tolerance(const std::string& dtype) {
  // fp32 1e-4 and half precision 1e-2 follow KernelBench (torchbench-derived); fp64 is tighter.
  if (dtype == "float16" || dtype == "bfloat16") return {1e-2, 1e-2};
  if (dtype == "float64") return {1e-7, 1e-7};
  return {1e-4, 1e-4};
}

}  // namespace kbench
